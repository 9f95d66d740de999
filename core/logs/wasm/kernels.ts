// AssemblyScript (not TypeScript): the per-token loops of the token-log scanner as WebAssembly,
// built by `npm run build:wasm` into core/logs/wasmbin.ts and driven by core/logs/kernels.ts.
// A JS byte loop costs about 1.5-2.5 ns per byte here; the same loop in WebAssembly about 0.6.
//
// Each kernel reads one JSON array of a timeline's `content` from an element position on, and
// stops at the first element it does not know how to take, without writing it; the JavaScript
// scanner (exportcolumns.ts, tokencolumns.ts) takes that element and the rest of the array, so
// every odd case keeps one reference implementation. An element counts as taken only with the
// separator after it. Positions are offsets in the payload; the payload is followed by a NUL
// (the sentinel that ends every loop: a NUL inside a string stops the kernel too).
//
// Returns: ~(index after the array's `]`) when the kernel read the array to its end, else the
// index of the element it stopped at. Other results go to the RES slots.

export { FREE, HEX, LOWER, setInput } from './memory';
export { ids, logprobs, mask, text } from './columns';
export { count, find, join, joinArray, lowerStable } from './search';
