#!/usr/bin/env python3
"""Extract the official JAX tutorials' code into programs: a measuring corpus, not fixtures.

Each MyST-NB page of JAX's docs/ (a checkout of jax-ml/jax; deleted pages are read from the
last revision that had them; with --rev, the page at that revision) becomes OUT/NAME.py: its code cells in order, without the cells
tagged `raises-exception` and without shell/magic lines. Fixtures taken from these programs
(fixtures/tutorials/) keep the fewest edits and name their page; their goldens come from
scripts/oracle.sh as always.

    python3 scripts/tutorial_corpus.py --jax-repo PATH --out DIR [docs/page.md ...]
    python3 scripts/tutorial_corpus.py --jax-repo PATH --out DIR --rev jax-v0.4.30

With --rev and no pages, the pages are every docs/*.md, docs/notebooks/*.md and docs/jax-101/*.md
that the revision has (those without code cells write nothing).
"""
import argparse
import os
import re
import subprocess

PAGES = [
    'docs/key-concepts.md', 'docs/jit-compilation.md', 'docs/automatic-vectorization.md',
    'docs/automatic-differentiation.md', 'docs/random-numbers.md', 'docs/working-with-pytrees.md',
    'docs/pytrees.md', 'docs/control-flow.md', 'docs/stateful-computations.md', 'docs/debugging.md',
    'docs/sharded-computation.md', 'docs/quickstart.md', 'docs/jaxpr.md', 'docs/higher-order.md',
    'docs/jacobian-vector-products.md', 'docs/tracing.md', 'docs/gradient-checkpointing.md',
    'docs/notebooks/thinking_in_jax.md', 'docs/notebooks/Common_Gotchas_in_JAX.md',
    'docs/notebooks/autodiff_cookbook.md', 'docs/notebooks/Neural_Network_and_Data_Loading.md',
    'docs/notebooks/shard_map.md', 'docs/notebooks/Custom_derivative_rules_for_Python_code.md',
    'docs/notebooks/vmapped_log_probs.md', 'docs/notebooks/convolutions.md',
    'docs/notebooks/explicit-sharding.md', 'docs/notebooks/Distributed_arrays_and_automatic_parallelization.md',
    'docs/jax-101/01-jax-basics.md', 'docs/jax-101/02-jitting.md', 'docs/jax-101/03-vectorization.md',
    'docs/jax-101/04-advanced-autodiff.md', 'docs/jax-101/05-random-numbers.md',
    'docs/jax-101/05.1-pytrees.md', 'docs/jax-101/06-parallelism.md', 'docs/jax-101/07-state.md',
]


def git(repo, *args):
    return subprocess.run(['git', *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def page_text(repo, path, rev=None):
    """The page at `rev`; without one, at HEAD or at the last revision before it was deleted."""
    if rev:
        return git(repo, 'show', f'{rev}:{path}')
    try:
        return git(repo, 'show', f'HEAD:{path}')
    except subprocess.CalledProcessError:
        rev = git(repo, 'log', '--diff-filter=D', '-1', '--format=%H', '--', path).strip()
        if not rev:
            raise SystemExit(f'{path}: not in the history of {repo}')
        return git(repo, 'show', f'{rev}^:{path}')


def pages_at(repo, rev):
    """The MyST pages of the docs at `rev` (top level, notebooks/ and jax-101/)."""
    names = git(repo, 'ls-tree', '-r', '--name-only', rev, 'docs').split('\n')
    return [n for n in names if re.fullmatch(r'docs/((notebooks|jax-101)/)?[^/]+\.md', n)]


def code_cells(md):
    for m in re.finditer(r'```\{code-cell\}[^\n]*\n(.*?)```', md, re.S):
        lines = m.group(1).split('\n')
        meta = ''
        if lines and lines[0].startswith('---'):
            end = lines.index('---', 1)
            meta, lines = '\n'.join(lines[1:end]), lines[end + 1:]
        while lines and lines[0].startswith(':'):
            meta, lines = meta + lines[0], lines[1:]
        if 'raises-exception' in meta:
            continue
        code = '\n'.join(l for l in lines if not re.match(r'^\s*[!%]', l)).strip('\n')
        if code:
            yield code


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--jax-repo', required=True, help='a git checkout of jax-ml/jax')
    ap.add_argument('--out', required=True, help='directory for the programs')
    ap.add_argument('--rev', help='a revision of the checkout (e.g. jax-v0.4.30) to read the pages at')
    ap.add_argument('pages', nargs='*')
    a = ap.parse_args()
    pages = a.pages or (pages_at(a.jax_repo, a.rev) if a.rev else PAGES)
    os.makedirs(a.out, exist_ok=True)
    for path in pages:
        cells = list(code_cells(page_text(a.jax_repo, path, a.rev)))
        if not cells:
            continue
        name = os.path.basename(path)[:-3].replace('-', '_').replace('.', '_')
        with open(os.path.join(a.out, f'{name}.py'), 'w') as f:
            at = f' at {a.rev}' if a.rev else ''
            f.write(f'# {path} of jax-ml/jax{at}: its code cells\n' + '\n\n'.join(cells) + '\n')
        print(f'{name}.py: {len(cells)} cells')


if __name__ == '__main__':
    main()
