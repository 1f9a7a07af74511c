// Types of the modules the playground's build provides: .py files bundled as
// text (esbuild `loader: { '.py': 'text' }`), the worker's bundle as text and
// the lessons of fixtures/lessons/ (scripts/build.mjs).
declare module '*.py' {
  const text: string;
  export default text;
}

declare module 'playground-worker' {
  /** The worker's script (playground/worker.ts bundled as an ES module). */
  const source: string;
  export default source;
}

declare module 'playground-lessons' {
  /** fixtures/lessons/NAME.py: the file's name, a title (its first comment line) and its text. */
  const lessons: readonly { name: string; title: string; source: string }[];
  export default lessons;
}
