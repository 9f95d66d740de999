// What bench/lsp.ts bundles (with the product's Node bundle aliases) to time validation in-process as it ships.
export { validateText } from '../core/config/validate';
export { ClassResolver } from '../core/config/classref';
export { CachedFs } from '../core/config/fs';
export { validateParsed } from '../core/config/validate';
export { parseConfig } from '../core/config/parse';
