// The Event / Summary / TensorProto messages of TensorBoard event files (tensorboard/compat/proto:
// event.proto, summary.proto, tensor.proto, tensor_shape.proto), declared as a protobufjs JSON
// descriptor with only the fields a scalar reader needs: the library skips the others (graphs,
// images, histograms) on the wire.
import { Reader, Root, type Message, type Type } from 'protobufjs/light';

const SCHEMA = {
  nested: {
    tb: {
      nested: {
        Event: {
          fields: {
            wallTime: { type: 'double', id: 1 },
            step: { type: 'int64', id: 2 },
            fileVersion: { type: 'string', id: 3 },
            summary: { type: 'Summary', id: 5 },
            sessionLog: { type: 'SessionLog', id: 7 },
          },
        },
        SessionLog: { fields: { status: { type: 'int32', id: 1 } } },
        Summary: { fields: { value: { rule: 'repeated', type: 'SummaryValue', id: 1 } } },
        SummaryValue: {
          fields: {
            tag: { type: 'string', id: 1 },
            nodeName: { type: 'string', id: 7 },
            simpleValue: { type: 'float', id: 2 },
            metadata: { type: 'SummaryMetadata', id: 9 },
            tensor: { type: 'TensorProto', id: 8 },
          },
        },
        SummaryMetadata: { fields: { pluginData: { type: 'PluginData', id: 1 } } },
        PluginData: { fields: { pluginName: { type: 'string', id: 1 } } },
        TensorShapeProto: { fields: { dim: { rule: 'repeated', type: 'Dim', id: 2 }, unknownRank: { type: 'bool', id: 3 } } },
        Dim: { fields: { size: { type: 'int64', id: 1 } } },
        TensorProto: {
          fields: {
            dtype: { type: 'int32', id: 1 },
            tensorShape: { type: 'TensorShapeProto', id: 2 },
            tensorContent: { type: 'bytes', id: 4 },
            halfVal: { rule: 'repeated', type: 'int32', id: 13 },
            floatVal: { rule: 'repeated', type: 'float', id: 5 },
            doubleVal: { rule: 'repeated', type: 'double', id: 6 },
            intVal: { rule: 'repeated', type: 'int32', id: 7 },
            int64Val: { rule: 'repeated', type: 'int64', id: 10 },
            boolVal: { rule: 'repeated', type: 'bool', id: 11 },
            uint32Val: { rule: 'repeated', type: 'uint32', id: 16 },
            uint64Val: { rule: 'repeated', type: 'uint64', id: 17 },
          },
        },
      },
    },
  },
};

/** protobufjs gives 64-bit integers as numbers, or as Long objects when the `long` package loads. */
type Int64 = number | { toNumber(): number };

interface TensorMsg {
  dtype: number;
  tensorShape?: { dim: { size: Int64 }[]; unknownRank: boolean };
  tensorContent: Uint8Array;
  halfVal: number[];
  floatVal: number[];
  doubleVal: number[];
  intVal: number[];
  int64Val: Int64[];
  boolVal: boolean[];
  uint32Val: number[];
  uint64Val: Int64[];
}
interface ValueMsg {
  tag: string;
  nodeName: string;
  simpleValue: number;
  metadata?: { pluginData?: { pluginName: string } };
  tensor?: TensorMsg;
}
interface EventMsg {
  wallTime: number;
  step: Int64;
  fileVersion: string;
  summary?: { value: ValueMsg[] };
  sessionLog?: { status: number };
}

let eventType: Type | undefined;
function event(): Type {
  return (eventType ??= Root.fromJSON(SCHEMA).lookupType('tb.Event'));
}

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const int64 = (v: Int64): number => (typeof v === 'number' ? v : v.toNumber());

/** What one event record says, as far as scalars go. */
export interface DecodedEvent {
  wallTime: number;
  step: number;
  fileVersion?: string;
  /** SessionLog.START: a (re)start of the writer. */
  sessionStart: boolean;
  hasSummary: boolean;
  /** Summary values, in order: the tag (TensorBoard falls back to node_name for tensors), the plugin its metadata names, the scalar if it is one. */
  values: { tag: string; plugin?: string; value?: number }[];
}

// TensorFlow's DataType numbers (types.proto) with the element size in tensor_content.
const DT = {
  FLOAT: 1,
  DOUBLE: 2,
  INT32: 3,
  UINT8: 4,
  INT16: 5,
  INT8: 6,
  INT64: 9,
  BOOL: 10,
  BFLOAT16: 14,
  UINT16: 17,
  HALF: 19,
  UINT32: 22,
  UINT64: 23,
};
const SIZE: Record<number, number> = { 1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 9: 8, 10: 1, 14: 2, 17: 2, 19: 2, 22: 4, 23: 8 };

function half(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}
function bfloat16(bits: number): number {
  const v = new DataView(new ArrayBuffer(4));
  v.setUint32(0, (bits & 0xffff) << 16);
  return v.getFloat32(0);
}

/** The value of a numeric tensor with exactly one element; undefined for anything else (text, histograms, images). */
export function scalarOfTensor(t: TensorMsg): number | undefined {
  const size = SIZE[t.dtype];
  if (size === undefined) return undefined;
  let n = 1;
  if (t.tensorShape) {
    if (t.tensorShape.unknownRank) return undefined;
    for (const d of t.tensorShape.dim) n *= int64(d.size);
  }
  if (n !== 1) return undefined;
  const c = t.tensorContent;
  if (c && c.length) {
    if (c.length !== size) return undefined;
    const v = new DataView(c.buffer, c.byteOffset, c.byteLength);
    switch (t.dtype) {
      case DT.FLOAT:
        return v.getFloat32(0, true);
      case DT.DOUBLE:
        return v.getFloat64(0, true);
      case DT.INT32:
        return v.getInt32(0, true);
      case DT.UINT8:
        return v.getUint8(0);
      case DT.INT16:
        return v.getInt16(0, true);
      case DT.INT8:
        return v.getInt8(0);
      case DT.INT64:
        return Number(v.getBigInt64(0, true));
      case DT.BOOL:
        return v.getUint8(0) ? 1 : 0;
      case DT.BFLOAT16:
        return bfloat16(v.getUint16(0, true));
      case DT.UINT16:
        return v.getUint16(0, true);
      case DT.HALF:
        return half(v.getUint16(0, true));
      case DT.UINT32:
        return v.getUint32(0, true);
      default:
        return Number(v.getBigUint64(0, true));
    }
  }
  // The typed repeated fields: one value (TensorFlow broadcasts a single value; one element needs one).
  const first = <T>(a: readonly T[]): T | undefined => a[0];
  switch (t.dtype) {
    case DT.FLOAT:
      return first(t.floatVal);
    case DT.DOUBLE:
      return first(t.doubleVal);
    case DT.INT32:
    case DT.UINT8:
    case DT.INT16:
    case DT.INT8:
    case DT.UINT16:
      return first(t.intVal);
    case DT.INT64: {
      const x = first(t.int64Val);
      return x === undefined ? undefined : int64(x);
    }
    case DT.BOOL: {
      const x = first(t.boolVal);
      return x === undefined ? undefined : x ? 1 : 0;
    }
    case DT.HALF:
    case DT.BFLOAT16: {
      const x = first(t.halfVal);
      return x === undefined ? undefined : t.dtype === DT.HALF ? half(x) : bfloat16(x);
    }
    case DT.UINT32:
      return first(t.uint32Val);
    default: {
      const x = first(t.uint64Val);
      return x === undefined ? undefined : int64(x);
    }
  }
}

/** A protobufjs reader over a chunk of records, for decodeEventIn (one reader a chunk, no copies). */
export function eventReader(buf: Uint8Array): Reader {
  return Reader.create(buf);
}

/** Decodes one event record. Throws (protobufjs's error) on bytes that are not an Event. */
export function decodeEvent(data: Uint8Array): DecodedEvent {
  return fromMessage(event().decode(data) as Message & EventMsg);
}

/** Decodes the event record at `start` (`length` bytes) of the reader's buffer. Throws on bytes that are not an Event. */
export function decodeEventIn(reader: Reader, start: number, length: number): DecodedEvent {
  reader.pos = start;
  // protobufjs bounds a nested message by lowering `len` and does not restore it when decoding throws.
  reader.len = reader.buf.length;
  const m = event().decode(reader, length) as Message & EventMsg;
  // A field that ran past the record (a malformed one) read bytes of the next: not an Event.
  if (reader.pos !== start + length) throw new Error('the event does not end where its record does');
  return fromMessage(m);
}

function fromMessage(m: Message & EventMsg): DecodedEvent {
  const out: DecodedEvent = {
    wallTime: m.wallTime,
    step: int64(m.step),
    sessionStart: !!m.sessionLog && m.sessionLog.status === 1,
    hasSummary: has(m, 'summary'),
    values: [],
  };
  if (has(m, 'fileVersion')) out.fileVersion = m.fileVersion;
  for (const v of m.summary?.value ?? []) {
    const plugin = v.metadata ? (v.metadata.pluginData?.pluginName ?? '') : undefined;
    if (has(v, 'simpleValue')) {
      // TensorBoard turns a simple_value into a scalar tensor with the scalars plugin's metadata.
      out.values.push({ tag: v.tag, plugin: 'scalars', value: v.simpleValue });
    } else if (v.tensor) {
      const value = scalarOfTensor(v.tensor);
      out.values.push({ tag: v.tag || v.nodeName, ...(plugin !== undefined ? { plugin } : {}), ...(value !== undefined ? { value } : {}) });
    } else if (plugin !== undefined) out.values.push({ tag: v.tag, plugin });
  }
  return out;
}

/** One event with scalar values (simple_value), framed-ready bytes: for tests, benches and fixtures. */
export function encodeScalarEvent(e: {
  step: number;
  wallTime: number;
  values?: [string, number][];
  fileVersion?: string;
  sessionStart?: boolean;
}): Uint8Array {
  const type = event();
  const msg: Record<string, unknown> = { wallTime: e.wallTime, step: e.step };
  if (e.fileVersion !== undefined) msg.fileVersion = e.fileVersion;
  if (e.sessionStart) msg.sessionLog = { status: 1 };
  if (e.values) msg.summary = { value: e.values.map(([tag, simpleValue]) => ({ tag, simpleValue })) };
  return type.encode(type.fromObject(msg)).finish();
}
