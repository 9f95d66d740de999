// esbuild's text loader (scripts/build.mjs) turns `import x from './file.py'` into the file's text.
declare module '*.py' {
  const text: string;
  export default text;
}
