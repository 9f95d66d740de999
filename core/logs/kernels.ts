// The scanner's WebAssembly kernels (wasm/, built into wasmbin.ts): one instance per
// thread, holding one payload at a time. The JavaScript scanner calls a kernel per token array
// and takes over where it stops (see the header of wasm/kernels.ts).
import { maskFromColor } from './color';
import { hexVal, type Column } from './jsonbytes';
import { KERNELS_WASM } from './wasmbin';

// The little of the WebAssembly API used here (the project's lib has no DOM types).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (m: object, imports: Record<string, Record<string, unknown>>) => { exports: unknown };
}
const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

interface WasmGlobal {
  readonly value: number;
}

interface Exports {
  memory: WasmMemory;
  // The memory layout (wasm/memory.ts): caseless bits, hex digits, then the payload's regions.
  LOWER: WasmGlobal;
  HEX: WasmGlobal;
  FREE: WasmGlobal;
  setInput(payload: number, s: number, e: number, k: number): void;
  text(p: number, i: number, out: number): number;
  ids(p: number, n: number, out: number): number;
  logprobs(p: number, n: number, out: number, eq: number, known: number): number;
  mask(p: number, n: number, out: number): number;
  count(p: number, i: number): number;
  lowerStable(c: number): number;
  join(n: number, out: number, ends: number): number;
  find(s: number, e: number, needle: number, len: number): number;
  joinArray(p: number, n: number, out: number, ends: number): number;
}

/** Payloads above this size are left to the JavaScript loops (the memory would be about 6x). */
export const MAX_WASM_PAYLOAD = 16 << 20;
const LOWER_BYTES = 8192,
  PAGE = 65536;

let module: object | undefined;

function hex6(v: number): string {
  return '#' + v.toString(16).padStart(6, '0');
}

/** Needles up to this many bytes are counted by the kernels (longer ones by Buffer.indexOf). */
const MAX_NEEDLE = 256;

/** Memory grown beyond this for a huge payload is given up at the next payload that fits in it. */
const KEEP_MEMORY = 64 << 20;

/** The matches of a needle in a joined text, as Buffer.indexOf finds them one after the other. */
export interface NeedleCount {
  needle: string;
  matches: number;
  /** The first match's byte offset, -1 for none. */
  at: number;
}

export class Kernels {
  private x!: Exports;
  private u8 = Buffer.alloc(0);
  private i32 = new Int32Array(0);
  // The regions for the current payload (see load).
  private outAt = 0;
  private sAt = 0;
  private eAt = 0;
  private kAt = 0;
  private endsAt = 0;
  /** Search: the needle join() counts (at most MAX_NEEDLE bytes), and where it is in memory. */
  private needle: Buffer | undefined;
  private needleAt = 0;
  /** Where the next timeline's join goes with `views` (from outAt and endsAt at each load). */
  private joinOut = 0;
  private joinEnds = 0;
  private lowerReady = false;

  private constructor() {
    this.instantiate();
  }

  /** A new instance with its own memory (WebAssembly memory only grows: this is how it shrinks). */
  private instantiate(): void {
    const api = wasmApi!;
    module ??= new api.Module(Buffer.from(KERNELS_WASM, 'base64'));
    const inst = new api.Instance(module, { env: { colorMask: (v: number) => maskFromColor(hex6(v)) } });
    this.x = inst.exports as unknown as Exports;
    this.lowerReady = false;
    this.ensure(this.x.FREE.value);
    const hex = this.x.HEX.value;
    for (let c = 0; c < 256; c++) this.u8[hex + c] = hexVal(c) >= 0 ? hexVal(c) : 0x80;
  }

  /** A kernel instance, or undefined where WebAssembly is missing or AGENTJET_NO_WASM is set. */
  static create(): Kernels | undefined {
    if (process.env.AGENTJET_NO_WASM || !wasmApi) return undefined;
    try {
      return new Kernels();
    } catch {
      return undefined;
    }
  }

  /** Grows the memory to `bytes` at least (the views follow). */
  private ensure(bytes: number): void {
    const have = this.x.memory.buffer.byteLength;
    if (bytes > have) this.x.memory.grow(Math.ceil((bytes - have) / PAGE));
    // A grown memory has a new buffer: the old views are detached.
    if (this.u8.buffer !== this.x.memory.buffer) this.views();
  }

  private views(): void {
    const buf = this.x.memory.buffer;
    this.u8 = Buffer.from(buf);
    this.i32 = new Int32Array(buf, 0, 16);
  }

  /**
   * Copies a payload in (followed by a NUL and padding, which end every loop); false when it is
   * too large for the kernels.
   */
  load(b: Buffer): boolean {
    const len = b.length;
    if (len > MAX_WASM_PAYLOAD) return false;
    const align = (n: number) => (n + 15) & ~15;
    const maxTokens = Math.floor(len / 3) + 2;
    const inAt = align(this.x.FREE.value);
    const outAt = align(inAt + len + 32);
    const sAt = align(outAt + len + 64);
    const eAt = sAt + 4 * maxTokens;
    const endsAt = eAt + 4 * maxTokens;
    const kAt = endsAt + 4 * maxTokens;
    const needleAt = align(kAt + maxTokens + 64);
    const need = needleAt + MAX_NEEDLE + 32;
    if (need <= KEEP_MEMORY && this.memoryBytes > KEEP_MEMORY) this.instantiate();
    this.ensure(need);
    this.u8.set(b, inAt);
    this.u8.fill(0, inAt + len, inAt + len + 32);
    this.outAt = outAt;
    this.sAt = sAt;
    this.eAt = eAt;
    this.kAt = kAt;
    this.endsAt = endsAt;
    this.joinOut = outAt;
    this.joinEnds = endsAt;
    this.needleAt = needleAt;
    if (this.needle) this.u8.set(this.needle, needleAt);
    this.x.setInput(inAt, sAt, eAt, kAt);
    return true;
  }

  /** The size of the kernels' memory. */
  get memoryBytes(): number {
    return this.x.memory.buffer.byteLength;
  }

  /** Elements taken by the last kernel (the column's count). */
  get n(): number {
    return this.i32[0]!;
  }
  /** Trained tokens of the last mask(). */
  get trained(): number {
    return this.i32[2]!;
  }
  /** Whether the titles still equal the texts after the last logprobs(). */
  get titleEq(): boolean {
    return this.i32[3] === 1;
  }

  /** Token texts from element p (i before it); with `write` their JSON goes to the output. */
  text(p: number, i: number, write: boolean): number {
    return this.x.text(p, i, write ? this.outAt : 0);
  }
  ids(p: number, n: number): number {
    return this.x.ids(p, n, this.outAt);
  }
  logprobs(p: number, n: number, titleEq: boolean, textsKnown: number): number {
    return this.x.logprobs(p, n, this.outAt, titleEq ? 1 : 0, textsKnown);
  }
  mask(p: number, n: number, write: boolean): number {
    return this.x.mask(p, n, write ? this.outAt : 0);
  }
  count(p: number, i: number): number {
    return this.x.count(p, i);
  }
  lowerStable(c: number): boolean {
    if (!this.lowerReady) this.lowerTable();
    return this.x.lowerStable(c) !== 0;
  }

  /** Copies the last kernel's output to dst at o (which has room); returns its length. */
  copyOut(dst: Buffer, o: number): number {
    const end = this.i32[1]!;
    return this.u8.copy(dst, o, this.outAt, end);
  }

  /** Copies text positions [from, to) into `col` (which grows as needed). */
  positions(col: Column, from: number, to: number): void {
    while (col.s.length < to) col.grow();
    const base = this.u8.byteOffset;
    const buf = this.u8.buffer;
    col.s.set(new Int32Array(buf, base + this.sAt + 4 * from, to - from), from);
    col.e.set(new Int32Array(buf, base + this.eAt + 4 * from, to - from), from);
    col.k.set(this.u8.subarray(this.kAt + from, this.kAt + to), from);
  }

  /** Writes the table of BMP code points whose toLowerCase() is themselves (for join), once. */
  private lowerTable(): void {
    const lower = this.x.LOWER.value;
    const bits = this.u8.subarray(lower, lower + LOWER_BYTES);
    bits.fill(0);
    for (let c = 0; c < 0x10000; c++) {
      // Surrogates are never stable (a lone one sends the timeline to the string path).
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      if (ch.toLowerCase() === ch) bits[c >> 3]! |= 1 << (c & 7);
    }
    this.lowerReady = true;
  }

  /**
   * Search: the needle (lower case, UTF-8) whose matches join() counts from now on;
   * undefined (or one too long for the kernels) for none.
   */
  setNeedle(needle: string | undefined): void {
    const b = needle ? Buffer.from(needle) : undefined;
    this.needle = b && b.length <= MAX_NEEDLE ? b : undefined;
    this.needleFor = this.needle ? needle : undefined;
    // The current payload's region has room for it.
    if (this.needle && this.needleAt > 0) this.u8.set(this.needle, this.needleAt);
  }
  private needleFor: string | undefined;

  /**
   * Search: token texts 0..n-1 joined and lowercased with their ends, or undefined (the JS path
   * decides). With `views`, the result is a view of the kernels' memory, after the previous
   * timeline's (valid until the next load); only when no other kernel writes output for this payload.
   */
  join(n: number, views = false): { joined: Buffer; ends: Int32Array; found?: NeedleCount } | undefined {
    return this.joined(n, views, -1);
  }

  /** join() from the text array at p (its `[`) whose n strings count() read, without their positions; undefined when it cannot. */
  joinArray(p: number, n: number, views = false): { joined: Buffer; ends: Int32Array; found?: NeedleCount } | undefined {
    return this.joined(n, views, p);
  }

  /**
   * joinArray() of a text array at p (its `[`, not empty) not counted yet: up to its end, with
   * the count and the index after its `]`; undefined when it cannot (count it, then join).
   */
  joinUncounted(p: number, views = false): { joined: Buffer; ends: Int32Array; found?: NeedleCount; n: number; end: number } | undefined {
    const j = this.joined(-1, views, p);
    return j && { ...j, n: this.uncounted, end: this.i32[6]! };
  }
  /** The strings the last joined(-1) took. */
  private uncounted = 0;

  private joined(n: number, views: boolean, at: number): { joined: Buffer; ends: Int32Array; found?: NeedleCount } | undefined {
    if (!this.lowerReady) this.lowerTable();
    const out = views ? this.joinOut : this.outAt,
      ends = views ? this.joinEnds : this.endsAt;
    const got = at < 0 ? this.x.join(n, out, ends) : this.x.joinArray(at, n, out, ends);
    if (n < 0) {
      if (got <= 0) return undefined;
      this.uncounted = n = got;
    } else if (got !== n) return undefined;
    const end = this.i32[1]!;
    const base = this.u8.byteOffset;
    let found: NeedleCount | undefined;
    if (this.needle) {
      const matches = this.x.find(out, end, this.needleAt, this.needle.length);
      found = { needle: this.needleFor!, matches, at: this.i32[5]! };
    }
    if (views) {
      // The texts of all timelines are at most the payload and its token count: the regions hold them all.
      this.joinOut = end;
      this.joinEnds = ends + 4 * n;
      return { joined: this.u8.subarray(out, end), ends: new Int32Array(this.u8.buffer, base + ends, n), found };
    }
    return {
      joined: Buffer.from(this.u8.subarray(out, end)),
      ends: new Int32Array(this.u8.buffer.slice(base + ends, base + ends + 4 * n)),
      found,
    };
  }
}
