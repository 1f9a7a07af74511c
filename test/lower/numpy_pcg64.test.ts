// numpy.random.default_rng's machinery (src/lower/numpy_pcg64.ts) against values real NumPy 2.4.6 gives:
// SeedSequence's state words, PCG64's raw 64-bit draws, the ziggurat normal and Lemire's bounded integers;
// and difflib.ndiff's guide lines (src/lower/ndiff.ts) against CPython's.
import { describe, expect, it } from 'vitest';
import { PCG64, seedSequenceState, uint32Words } from '../../runtime/numpy/pcg64.js';
import { ndiffLines } from '../../src/lower/ndiff.js';

describe('numpy PCG64', () => {
  it('SeedSequence(seed).generate_state(4, uint64)', () => {
    expect(seedSequenceState(uint32Words(0n), 4)).toEqual([15793235383387715774n, 12390638538380655177n, 2361836109651742017n, 3188717715514472916n]);
    expect(seedSequenceState([...uint32Words(1n), ...uint32Words(2n ** 40n)], 4)).toEqual([
      2648639702266984948n, 3321121513199629206n, 11664091967091085801n, 15301835318378045262n,
    ]);
  });
  it('PCG64(0).random_raw(3)', () => {
    const g = new PCG64([0]);
    expect([g.next64(), g.next64(), g.next64()]).toEqual([11749869230777074271n, 4976686463289251617n, 755828109848996024n]);
  });
  it('default_rng(0).standard_normal(6) (the ziggurat)', () => {
    const g = new PCG64([0]);
    expect(Array.from({ length: 6 }, () => g.standardNormal())).toEqual([
      0.1257302210933933, -0.1321048632913019, 0.6404226504432821, 0.10490011715303971, -0.535669373161111, 0.36159505490948474,
    ]);
  });
  it('default_rng(0).integers: 32-bit and 64-bit Lemire', () => {
    const g = new PCG64([0]);
    expect(Array.from({ length: 6 }, () => g.bounded(9n))).toEqual([8n, 6n, 5n, 2n, 3n, 0n]);
    expect(Array.from({ length: 3 }, () => g.bounded(10n ** 12n))).toEqual([16527635528n, 813270239201n, 912755577278n]);
  });
});

describe('difflib.ndiff of one line', () => {
  it('gives the guide lines of a close replacement, and a plain one otherwise', () => {
    expect(ndiffLines("('a',)", "('b',)")).toEqual(["- ('a',)", '?   ^\n', "+ ('b',)", '?   ^\n']);
    expect(ndiffLines("(3, 'x')", "(4, 'xy')")).toEqual(["- (3, 'x')", '?  ^\n', "+ (4, 'xy')", '?  ^    +\n']);
    expect(ndiffLines("('w', 'b')", "('w', 'c', 'b')")).toEqual(["- ('w', 'b')", "+ ('w', 'c', 'b')", '?       +++++\n']);
    expect(ndiffLines('hello', 'world')).toEqual(['- hello', '+ world']);
    expect(ndiffLines('abc def', 'abd  ef')).toEqual(['- abc def', '+ abd  ef']);
  });
});
