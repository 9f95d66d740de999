// The shapes of a stack report (`agentjet stacks`, Show Stacks): plain data, no I/O.

/** One Python frame. `line` is 1-based; undefined when the tool could not tell. */
export interface StackFrame {
  func: string;
  file: string;
  line: number | undefined;
}

/** One thread's stack, innermost frame first (py-spy's and faulthandler's order). */
export interface ThreadStack {
  /** The thread's id as the tool printed it (`0x7f...`), or its OS id. */
  id: string;
  name: string | undefined;
  /** py-spy: the thread is on a CPU (not idle). */
  active: boolean | undefined;
  /** faulthandler: the thread that ran the signal handler ("Current thread"). */
  current: boolean;
  frames: StackFrame[];
  /** The tool cut the stack (faulthandler stops at 100 frames). */
  truncated: boolean;
}

export type StackMethod = 'py-spy' | 'faulthandler';

/** Why a process has no stacks. */
export type StackErrorKind = 'permission' | 'gone' | 'timeout' | 'not-python' | 'no-tool' | 'failed';

export interface ProcessStacks {
  pid: number;
  ppid: number | undefined;
  /** Its command line (from `ps`). */
  args: string;
  /** How it belongs to the run: the lock's process, a descendant of it, a Ray worker of the session. */
  role: 'root' | 'child' | 'ray-worker';
  method: StackMethod | undefined;
  threads: ThreadStack[];
  error?: { kind: StackErrorKind; message: string };
}

/** Threads whose stacks are the same, frame for frame. */
export interface StackGroup {
  frames: StackFrame[];
  /** The innermost frame's function: what they wait in. */
  waitsIn: string;
  members: { pid: number; thread: string; threadName: string | undefined }[];
  /** How many different processes hold these threads. */
  processes: number;
}

export interface StackReport {
  /** Epoch ms the report was taken. */
  takenAt: number;
  processes: ProcessStacks[];
  groups: StackGroup[];
  /** Processes of the tree that were not read because of the cap. */
  skipped: number;
  /** What the user should know: the cap, the platform, a missing tool. */
  notes: string[];
  /** The Ray sessions whose workers on this node were read, and how each was found (given: no `foundBy`). */
  raySessions?: { dir: string; foundBy?: { pid: number; via: 'open-file' | 'command-line' | 'ray-address' } }[];
}
