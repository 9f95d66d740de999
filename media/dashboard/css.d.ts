// esbuild bundles imported stylesheets into dist/media/<name>.css.
declare module '*.css';
