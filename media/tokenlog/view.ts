// The viewer's parts, each a module with its own state, wired together once in main.ts.
import type { Dom } from './layout';
import type { Host } from './host';
import type { RecordList } from './list';
import type { Filters } from './filters';
import type { Detail } from './detail';
import type { TokenTimeline } from './timeline';
import type { GroupView } from './group';
import type { Reporter } from './report';

export interface View {
  readonly host: Host;
  readonly dom: Dom;
  readonly list: RecordList;
  readonly filters: Filters;
  readonly detail: Detail;
  readonly timeline: TokenTimeline;
  readonly group: GroupView;
  readonly report: Reporter;
}
