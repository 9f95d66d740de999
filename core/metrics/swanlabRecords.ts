// The records inside a SwanLab run file, as SwanLab writes them:
// - version 1 (SwanLab 0.6.8-0.7.x; checked against v0.7.11 `swanlab/proto/v0.py`, `BaseModel.to_record`,
//   and `swanlab/data/run/key.py`, `SwanLabKey.__new_metric`): one UTF-8 JSON object and "\n" per record,
//   `{"model_type": "Scalar", "data": {"metric": {"index": STEP, "data": VALUE, "create_time": ISO}, "key", "step", "epoch"}}`;
//   VALUE is a float, or the strings "NaN" / "INF" (swanlab/data/modules/line: Line.nan / Line.inf).
//   `Project` and `Experiment` records carry the project and experiment names given to swanlab.init.
// - version 2 (SwanLab 0.8+; checked against v0.9.7 `protos/swanlab/record/v1/record.proto`,
//   `metric/data/v1/data.proto`, `run/v1/run.proto`): a protobuf `swanlab.record.v1.Record` per record;
//   `scalar` (13) holds key, step, timestamp and `value.number` (a double); `start` (10) the project and name.
// Only the fields a scalar reader needs are declared; protobufjs skips the others on the wire.
import { Root, type Message, type Type } from 'protobufjs/light';

export type SwanLabRecord =
  | { kind: 'scalar'; key: string; step: number; wallTime: number; value: number }
  | { kind: 'run'; project?: string; experiment?: string }
  | { kind: 'other' };

const TIMESTAMP = { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } };
const SCHEMA = {
  nested: {
    sl: {
      nested: {
        Timestamp: TIMESTAMP,
        Record: {
          fields: {
            num: { type: 'int64', id: 1 },
            timestamp: { type: 'Timestamp', id: 2 },
            start: { type: 'StartRecord', id: 10 },
            scalar: { type: 'ScalarRecord', id: 13 },
          },
        },
        StartRecord: { fields: { project: { type: 'string', id: 1 }, name: { type: 'string', id: 4 }, id: { type: 'string', id: 10 } } },
        ScalarRecord: {
          fields: {
            key: { type: 'string', id: 1 },
            step: { type: 'int64', id: 2 },
            type: { type: 'int32', id: 3 },
            timestamp: { type: 'Timestamp', id: 4 },
            value: { type: 'ScalarValue', id: 5 },
          },
        },
        ScalarValue: { fields: { number: { type: 'double', id: 1 } } },
      },
    },
  },
};

type Int64 = number | { toNumber(): number };
interface TimestampMsg {
  seconds: Int64;
  nanos: number;
}
interface RecordMsg {
  timestamp?: TimestampMsg;
  start?: { project: string; name: string };
  scalar?: { key: string; step: Int64; timestamp?: TimestampMsg; value?: { number: number } };
}

let recordType: Type | undefined;
export function swanlabRecordType(): Type {
  return (recordType ??= Root.fromJSON(SCHEMA).lookupType('sl.Record'));
}
const int64 = (v: Int64): number => (typeof v === 'number' ? v : v.toNumber());
const seconds = (t: TimestampMsg | undefined): number => (t ? int64(t.seconds) + t.nanos / 1e9 : NaN);

/** Decodes one version-2 record. Throws on bytes that are not a Record. */
export function decodeSwanLabProto(data: Uint8Array): SwanLabRecord {
  const m = swanlabRecordType().decode(data) as Message & RecordMsg;
  if (m.scalar) {
    const s = m.scalar;
    return { kind: 'scalar', key: s.key, step: int64(s.step), wallTime: seconds(s.timestamp ?? m.timestamp), value: s.value?.number ?? 0 };
  }
  if (m.start)
    return { kind: 'run', ...(m.start.project ? { project: m.start.project } : {}), ...(m.start.name ? { experiment: m.start.name } : {}) };
  return { kind: 'other' };
}

// Python's json.dumps writes NaN / Infinity bare (allow_nan): quote them so JSON.parse takes them.
const BARE = /([:[,]\s*)(-?Infinity|NaN)(?=\s*[,\]}])/g;

function lineValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  if (v === 'NaN') return NaN;
  if (v === 'INF' || v === 'Infinity') return Infinity;
  if (v === '-INF' || v === '-Infinity') return -Infinity;
  return undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Decodes one version-1 record (a JSON line). Throws on text that is not one. */
export function decodeSwanLabJson(data: Uint8Array): SwanLabRecord {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    o = JSON.parse(text.replace(BARE, '$1"$2"'));
  }
  if (!isObj(o) || typeof o.model_type !== 'string' || !isObj(o.data)) throw new Error('not a SwanLab record');
  const d = o.data;
  switch (o.model_type) {
    case 'Scalar': {
      const metric = isObj(d.metric) ? d.metric : {};
      const step = typeof d.step === 'number' ? d.step : metric.index;
      const value = lineValue(metric.data);
      if (typeof d.key !== 'string' || typeof step !== 'number' || value === undefined) throw new Error('not a SwanLab scalar');
      const time = typeof metric.create_time === 'string' ? Date.parse(metric.create_time) / 1000 : NaN;
      return { kind: 'scalar', key: d.key, step, wallTime: time, value };
    }
    case 'Project':
      return typeof d.name === 'string' ? { kind: 'run', project: d.name } : { kind: 'other' };
    case 'Experiment':
      return typeof d.name === 'string' ? { kind: 'run', experiment: d.name } : { kind: 'other' };
    default:
      return { kind: 'other' };
  }
}

export function decodeSwanLabRecord(version: number, data: Uint8Array): SwanLabRecord {
  return version === 1 ? decodeSwanLabJson(data) : decodeSwanLabProto(data);
}
