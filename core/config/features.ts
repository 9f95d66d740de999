// Editor features over a parsed config, as pure functions: completion, hover, definition,
// document links and code actions. The language server only converts these to LSP types.
// One module per feature (as yaml-language-server does); this file gathers them.
export * from './context';
export * from './hover';
export * from './completion';
export * from './codeActions';
