// The layering of jaxts (../shared/DESIGN.md): arrows point down the pipeline
// only. `npm test` checks these rules (test/layering.test.ts); `npx depcruise
// src runtime` prints the same report.
//   parser ← lower → ir, lower → passes (trace-time transforms), passes → ir,
//   codegen → ir, ir/codegen → runtime's program format; common/ is neutral;
//   the runtime imports nothing of the compiler.

/** src/lower's evaluator core: the one import cycle allowed (Python evaluation is mutually recursive). */
const EVALUATOR_CORE = '^src/lower/(interp|expr|stmt|attrs|format|printf)\\.ts$';

const stage = (name, comment, path, forbidden) => ({
  name,
  comment,
  severity: 'error',
  from: { path },
  to: { path: forbidden },
});

module.exports = {
  forbidden: [
    stage('runtime-not-compiler', 'the runtime is bundled alone into pages: it imports nothing of the compiler', '^runtime/', '^src/'),
    {
      name: 'runtime-no-node',
      comment: 'the runtime runs in browsers: only runtime/node.ts may import Node built-ins',
      severity: 'error',
      from: { path: '^runtime/', pathNot: '^runtime/node\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    stage('common-neutral', 'src/common (spans, diagnostics) is shared by every stage and imports none', '^src/common/', '^src/(?!common/)'),
    stage('parser-first', 'the parser knows nothing of the IR, lowering, passes or codegen', '^src/parser/', '^src/(ir|lower|passes|codegen)/'),
    stage('ir-is-data', 'the IR is data: it knows nothing of Python, passes or rendering', '^src/ir/', '^src/(parser|lower|passes|codegen)/'),
    stage('passes-below-lower', 'passes transform IR: no Python syntax, no lowering, no rendering', '^src/passes/', '^src/(parser|lower|codegen)/'),
    stage('codegen-renders', 'codegen renders what it is given: no parser, lowering or passes', '^src/codegen/', '^src/(parser|lower|passes)/'),
    stage('lower-not-codegen', 'lowering records programs; it does not render them', '^src/lower/', '^src/codegen/'),
    stage(
      'stages-not-drivers',
      'the pipeline stages do not import the drivers (compile, CLI, plugin, playground)',
      '^src/(common|parser|lower|ir|passes|codegen)/',
      '^src/[^/]+\\.ts$',
    ),
    stage(
      'core-not-library',
      'the evaluator core reaches the API modules, array methods and transformations through the Library that src/lower/index.ts builds',
      EVALUATOR_CORE,
      '^src/lower/(lib_[^/]+|array_methods|transforms|exports|index)\\.ts$',
    ),
    {
      name: 'no-circular',
      comment: 'no import cycles, except inside the evaluator core of src/lower',
      severity: 'error',
      from: { path: '^(src|runtime)/' },
      to: { circular: true, via: { pathNot: EVALUATOR_CORE } },
    },
    {
      name: 'no-circular-core',
      comment: 'a module outside the evaluator core is in no cycle',
      severity: 'error',
      from: { path: '^(src|runtime)/', pathNot: EVALUATOR_CORE },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|runtime)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
