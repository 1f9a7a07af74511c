// Type of the .py files the playground bundles as text (esbuild `loader: { '.py': 'text' }`).
declare module '*.py' {
  const text: string;
  export default text;
}
