// Tests of expression parsing: Python precedence and associativity, every
// expression kind, literals, displays, comprehensions, calls and subscripts.
import { describe, expect, it } from 'vitest';
import { ex, expr, parseError } from './helpers.js';

describe('redundant parentheses', () => {
  it('parses 200 nested grouping parentheses, as CPython 3.11 does', () => {
    expect(ex('('.repeat(200) + 'x' + ')'.repeat(200))).toBe('x');
    expect(ex('((' + '(a, b)' + '))')).toBe(ex('(a, b)'));
    expect(ex('-((' + '(a + b)' + '))')).toBe('(- (+ a b))');
  });

  it('keeps call, tuple and operand parentheses', () => {
    expect(ex('f((x))')).toBe(ex('f(x)'));
    expect(ex('((a), (b))')).toBe(ex('(a, b)'));
    expect(ex('((a) + (b))')).toBe('(+ a b)');
    expect(ex('(())')).toBe(ex('()'));
  });
});

describe('precedence and associativity', () => {
  it('binds ** tighter than unary minus on its left, looser on its right', () => {
    expect(ex('-x**2')).toBe('(- (** x 2))');
    expect(ex('(-x)**2')).toBe('(** (- x) 2)');
    expect(ex('x**-y')).toBe('(** x (- y))');
    expect(ex('-x**-y**z')).toBe('(- (** x (- (** y z))))');
  });

  it('makes ** right-associative and the other binary operators left-associative', () => {
    expect(ex('2**3**4')).toBe('(** 2 (** 3 4))');
    expect(ex('a - b - c')).toBe('(- (- a b) c)');
    expect(ex('a / b * c // d % e @ f')).toBe('(@ (% (// (* (/ a b) c) d) e) f)');
    expect(ex('a << b >> c')).toBe('(>> (<< a b) c)');
  });

  it('orders the binary operators | ^ & shifts + * ', () => {
    expect(ex('a | b ^ c & d << e + f * g')).toBe('(| a (^ b (& c (<< d (+ e (* f g))))))');
    expect(ex('a * b + c << d & e ^ f | g')).toBe('(| (^ (& (<< (+ (* a b) c) d) e) f) g)');
    expect(ex('a + b * c - d')).toBe('(- (+ a (* b c)) d)');
    expect(ex('~a + -b - +c')).toBe('(- (+ (~ a) (- b)) (+ c))');
  });

  it('places comparisons, not, and, or and the conditional', () => {
    expect(ex('not a == b')).toBe('(not (cmp a == b))');
    expect(ex('a or b and not c')).toBe('(or a (and b (not c)))');
    expect(ex('a and b and c or d or e')).toBe('(or (and a b c) d e)');
    expect(ex('a | b < c & d')).toBe('(cmp (| a b) < (& c d))');
    expect(ex('a if b else c if d else e')).toBe('(if b a (if d c e))');
    expect(ex('a or b if c and d else e')).toBe('(if (and c d) (or a b) e)');
    expect(ex('lambda: a if b else c')).toBe('(lambda () (if b a c))');
  });

  it('chains comparisons, including is not and not in', () => {
    expect(ex('a < b <= c != d == e > f >= g')).toBe('(cmp a < b <= c != d == e > f >= g)');
    expect(ex('a is not b')).toBe('(cmp a is not b)');
    expect(ex('a not in b in c is d')).toBe('(cmp a not in b in c is d)');
  });

  it('parses await as a primary', () => {
    expect(ex('await x ** 2')).toBe('(** (await x) 2)');
    expect(ex('-await f(x)')).toBe('(- (await (call f x)))');
  });

  it('parses trailers left to right', () => {
    expect(ex('a.b(c)[d].e')).toBe('(. ([] (call (. a b) c) d) e)');
    expect(ex('f(a)(b)')).toBe('(call (call f a) b)');
  });
});

describe('literals', () => {
  it('parses numbers, strings, and constants', () => {
    expect(ex('1')).toBe('1');
    expect(ex('1.5')).toBe('1.5');
    expect(ex('2.')).toBe('2.0');
    expect(ex('3j')).toBe('3j');
    expect(ex('"a" \'b\' """c"""')).toBe('"abc"');
    expect(ex("b'a' b'b'")).toBe('b"ab"');
    expect(ex('None')).toBe('None');
    expect(ex('True')).toBe('True');
    expect(ex('False')).toBe('False');
    expect(ex('...')).toBe('...');
  });

  it('keeps integers exact', () => {
    expect(expr('123456789012345678901234567890')).toMatchObject({ kind: 'Constant', value: 123456789012345678901234567890n });
  });

  it('marks bytes', () => {
    expect(expr("b'x'")).toMatchObject({ kind: 'Constant', value: 'x', isBytes: true });
    expect(expr("'x'")).not.toHaveProperty('isBytes');
  });

  it('rejects mixing bytes and str', () => {
    expect(parseError("x = 'a' b'b'")).toBe('1:9 cannot mix bytes and nonbytes literals');
  });
});

describe('displays', () => {
  it('parses tuples, including empty, single and trailing commas', () => {
    expect(ex('()')).toBe('(tuple)');
    expect(ex('(1,)')).toBe('(tuple 1)');
    expect(ex('(1, 2,)')).toBe('(tuple 1 2)');
    expect(ex('(1)')).toBe('1');
    expect(ex('((1))')).toBe('1');
    expect(ex('1, 2')).toBe('(tuple 1 2)');
    expect(ex('1,')).toBe('(tuple 1)');
    expect(ex('(*a, *b)')).toBe('(tuple (* a) (* b))');
  });

  it('parses lists, sets and dicts', () => {
    expect(ex('[]')).toBe('(list)');
    expect(ex('[1, 2,]')).toBe('(list 1 2)');
    expect(ex('[*a, b]')).toBe('(list (* a) b)');
    expect(ex('{}')).toBe('(dict)');
    expect(ex('{1, 2,}')).toBe('(set 1 2)');
    expect(ex('{*a, 1}')).toBe('(set (* a) 1)');
    expect(ex("{'a': 1, **d, 'b': 2,}")).toBe('(dict "a":1 **d "b":2)');
  });

  it('parses comprehensions with several for and if clauses', () => {
    expect(ex('[x for x in y]')).toBe('(listcomp x (for x y))');
    expect(ex('[x for x in a if x > 0 if x < 9 for y in x]')).toBe(
      '(listcomp x (for x a (if (cmp x > 0)) (if (cmp x < 9))) (for y x))',
    );
    expect(ex('{x for x in y}')).toBe('(setcomp x (for x y))');
    expect(ex('{k: v for k, v in d.items()}')).toBe('(dictcomp k:v (for (tuple k v) (call (. d items))))');
    expect(ex('(x for x in y)')).toBe('(genexp x (for x y))');
    expect(ex('[a if b else c for (d, *e) in f]')).toBe('(listcomp (if b a c) (for (tuple d (* e)) f))');
    expect(ex('[i async for i in a]')).toBe('(listcomp i (async-for i a))');
  });

  it('rejects bad comprehensions', () => {
    expect(parseError('[*a for a in b]')).toBe('1:2 iterable unpacking cannot be used in comprehension');
    expect(parseError('{**a for a in b}')).toBe('1:2 dict unpacking cannot be used in dict comprehension');
    expect(parseError('[x for 1 in y]')).toBe('1:8 cannot assign to literal');
  });
});

describe('calls', () => {
  it('parses positional, keyword, starred and double-starred arguments', () => {
    expect(ex('f(a, b, *c, d=1, **e)')).toBe('(call f a b (* c) d=1 **e)');
    expect(ex('f(*a, *b, k=1, **c, **d)')).toBe('(call f (* a) (* b) k=1 **c **d)');
    expect(ex('f(a,)')).toBe('(call f a)');
    expect(ex('f()')).toBe('(call f)');
    expect(ex('f(x := 1)')).toBe('(call f (:= x 1))');
  });

  it('parses a generator argument', () => {
    expect(ex('sum(x for x in y)')).toBe('(call sum (genexp x (for x y)))');
    expect(ex('f((x for x in y), 1)')).toBe('(call f (genexp x (for x y)) 1)');
  });

  it('rejects misordered arguments', () => {
    expect(parseError('f(a=1, b)')).toBe('1:8 positional argument follows keyword argument');
    expect(parseError('f(**a, b)')).toBe('1:8 positional argument follows keyword argument unpacking');
    expect(parseError('f(x for x in y, 1)')).toBe('1:3 Generator expression must be parenthesized');
  });
});

describe('subscripts and slices', () => {
  it('parses simple subscripts and slices', () => {
    expect(ex('x[1]')).toBe('([] x 1)');
    expect(ex('x[1:2]')).toBe('([] x (slice 1 2 _))');
    expect(ex('x[::2]')).toBe('([] x (slice _ _ 2))');
    expect(ex('x[:]')).toBe('([] x (slice _ _ _))');
    expect(ex('x[::]')).toBe('([] x (slice _ _ _))');
    expect(ex('x[a:b:c]')).toBe('([] x (slice a b c))');
    expect(ex('x[:-1]')).toBe('([] x (slice _ (- 1) _))');
  });

  it('parses tuples of slices, Ellipsis and None', () => {
    expect(ex('x[1:2, ::3, None]')).toBe('([] x (tuple (slice 1 2 _) (slice _ _ 3) None))');
    expect(ex('x[..., 0]')).toBe('([] x (tuple ... 0))');
    expect(ex('x[:, None]')).toBe('([] x (tuple (slice _ _ _) None))');
    expect(ex('x[a,]')).toBe('([] x (tuple a))');
    expect(ex('x[*a]')).toBe('([] x (tuple (* a)))');
    expect(ex('x[(1, 2)]')).toBe('([] x (tuple 1 2))');
  });

  it('rejects empty subscripts', () => {
    expect(parseError('x[]')).toBe('1:3 invalid syntax');
    expect(parseError('x[1,,2]')).toBe('1:5 invalid syntax');
  });
});

describe('lambda, conditional and walrus', () => {
  it('parses lambda parameter lists', () => {
    expect(ex('lambda: 0')).toBe('(lambda () 0)');
    expect(ex('lambda x, y=1, *a, k, **kw: x')).toBe('(lambda (x y=1 *a k!kw **kw) x)');
    expect(ex('lambda *, k=2: k')).toBe('(lambda (k=2!kw) k)');
    expect(ex('lambda a, /, b: a')).toBe('(lambda (a!pos b) a)');
    expect(ex('lambda x: lambda y: x + y')).toBe('(lambda (x) (lambda (y) (+ x y)))');
  });

  it('parses assignment expressions where CPython allows them', () => {
    expect(ex('(y := f(x))')).toBe('(:= y (call f x))');
    expect(ex('[y := 1, y ** 2]')).toBe('(list (:= y 1) (** y 2))');
    expect(ex('x[y := 1]')).toBe('([] x (:= y 1))');
    expect(parseError('a := 1')).toBe('1:3 invalid syntax');
    expect(parseError('(a.b := 1)')).toBe('1:2 cannot use assignment expressions with attribute');
  });

  it('rejects a bare starred expression', () => {
    expect(parseError('*a')).toBe('1:1 cannot use starred expression here');
    expect(parseError('print((*a))')).toBe('1:8 cannot use starred expression here');
  });
});
