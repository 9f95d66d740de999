// SwanLab run folders built per SwanLab's own writer (there is no SwanLab on these machines), from
// SwanHubX/SwanLab's code:
// - the framing: v0.7.11 `swanlab/data/porter/datastore.py` (DataStore.open_for_write / write /
//   _write_record), v0.9.7 `swanlab/sdk/internal/core_python/store/__init__.py` (DataStoreWriter);
// - version 1 records: v0.7.11 `swanlab/proto/v0.py` (BaseModel.to_record: json.dumps of
//   {model_type, data} and "\n"; Header, Project, Experiment, Column, Scalar), metric dicts from
//   `swanlab/data/run/key.py` (SwanLabKey.__new_metric: index, data, create_time);
// - version 2 records: v0.9.7 `protos/swanlab/record/v1/record.proto` (Record: num, timestamp, start, scalar);
// - the folder: `SWANLAB_LOG_DIR/run-<YYYYmmdd_HHMMSS>-<id>/` with backup.swanlab (v0.7.11) or run-<id>.swanlab (v0.9.7).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buf as crc32Buf } from 'crc-32';
import { SWL_BLOCK, SWL_HEADER_LEN, SWL_MAGIC, SWL_TYPE_CRC } from '../../core/metrics/swanlabStore';
import { swanlabRecordType } from '../../core/metrics/swanlabRecords';

/** Frames logical records as SwanLab's writer does: the file header, then each record in chunks within 32 KB blocks. */
export function writeSwl(version: number, records: readonly Uint8Array[]): Buffer {
  const out: Uint8Array[] = [];
  let index = 0;
  const push = (b: Uint8Array) => {
    out.push(b);
    index += b.length;
  };
  const head = Buffer.alloc(SWL_HEADER_LEN);
  head.write(':SWL', 0, 'latin1');
  head.writeUInt16LE(SWL_MAGIC, 4);
  head[6] = version;
  push(head);
  const chunk = (data: Uint8Array, type: number) => {
    const h = Buffer.alloc(SWL_HEADER_LEN);
    h.writeUInt32LE(crc32Buf(data, SWL_TYPE_CRC[type]) >>> 0, 0);
    h.writeUInt16LE(data.length, 4);
    h[6] = type;
    push(h);
    if (data.length) push(data);
  };
  for (const data of records) {
    let left = SWL_BLOCK - (index % SWL_BLOCK);
    if (left < SWL_HEADER_LEN) {
      push(new Uint8Array(left));
      left = SWL_BLOCK;
    }
    if (data.length + SWL_HEADER_LEN <= left) {
      chunk(data, 1);
      continue;
    }
    let used = left - SWL_HEADER_LEN;
    chunk(data.subarray(0, used), 2);
    while (data.length - used > SWL_BLOCK - SWL_HEADER_LEN) {
      chunk(data.subarray(used, used + SWL_BLOCK - SWL_HEADER_LEN), 3);
      used += SWL_BLOCK - SWL_HEADER_LEN;
    }
    chunk(data.subarray(used), 4);
  }
  return Buffer.concat(out);
}

const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('Z', '+00:00');
/** Python's json.dumps separators (", ", ": "). */
const pyJson = (o: unknown) => JSON.stringify(o).replace(/","/g, '", "').replace(/":/g, '": ').replace(/,"/g, ', "');
const v1 = (type: string, data: unknown) => Buffer.from(pyJson({ model_type: type, data }) + '\n', 'utf8');

export interface SwanPoint {
  key: string;
  step: number;
  /** A number, or NaN / Infinity (written as SwanLab writes them: "NaN" / "INF"). */
  value: number;
  wallTime: number;
}

/** Version-1 records (SwanLab 0.7.x) of a run. */
export function v1Records(
  project: string,
  experiment: string,
  points: readonly SwanPoint[],
  extra: { padding?: number } = {},
): Uint8Array[] {
  const recs: Uint8Array[] = [
    v1('Header', { backup_type: 'DEFAULT', create_time: iso(1.7e9) }),
    v1('Project', { name: project, workspace: null, public: null }),
    v1('Experiment', {
      id: 'abc123',
      name: experiment,
      colors: ['#528d59', '#587ad2'],
      description: extra.padding ? 'x'.repeat(extra.padding) : null,
      tags: [],
    }),
  ];
  const epoch = new Map<string, number>();
  for (const p of points) {
    const e = (epoch.get(p.key) ?? 0) + 1;
    epoch.set(p.key, e);
    if (e === 1)
      recs.push(
        v1('Column', {
          key: p.key,
          kid: String(epoch.size - 1),
          name: p.key,
          cls: 'CUSTOM',
          column_type: 'FLOAT',
          chart_reference: 'STEP',
        }),
      );
    const data = Number.isNaN(p.value) ? 'NaN' : Number.isFinite(p.value) ? p.value : 'INF';
    recs.push(v1('Scalar', { metric: { index: p.step, data, create_time: iso(p.wallTime) }, key: p.key, step: p.step, epoch: e }));
  }
  return recs;
}

/** Version-2 records (SwanLab 0.8+) of a run. */
export function v2Records(project: string, experiment: string, points: readonly SwanPoint[]): Uint8Array[] {
  const type = swanlabRecordType();
  const ts = (sec: number) => ({ seconds: Math.floor(sec), nanos: Math.round((sec - Math.floor(sec)) * 1e9) });
  const enc = (o: Record<string, unknown>) => type.encode(type.fromObject(o)).finish();
  const recs = [enc({ num: -1, timestamp: ts(1.7e9), start: { project, name: experiment, id: 'abc123' } })];
  let num = 1;
  for (const p of points)
    recs.push(
      enc({
        num: num++,
        timestamp: ts(p.wallTime),
        scalar: { key: p.key, step: p.step, type: 1, timestamp: ts(p.wallTime), value: { number: p.value } },
      }),
    );
  return recs;
}

/** A run folder under `logDir` as SwanLab makes it; returns the folder and its run file. */
export function writeSwanLabRun(
  logDir: string,
  o: { version: 1 | 2; project: string; experiment: string; points: readonly SwanPoint[]; stamp?: string; id?: string },
): { dir: string; file: string } {
  const id = o.id ?? 'abc123';
  const dir = join(logDir, `run-${o.stamp ?? '20260526_090705'}-${id}`);
  for (const sub of ['media', 'logs', 'files', 'console']) mkdirSync(join(dir, sub), { recursive: true });
  const file = join(dir, o.version === 1 ? 'backup.swanlab' : `run-${id}.swanlab`);
  const recs = o.version === 1 ? v1Records(o.project, o.experiment, o.points) : v2Records(o.project, o.experiment, o.points);
  writeFileSync(file, writeSwl(o.version, recs));
  return { dir, file };
}
