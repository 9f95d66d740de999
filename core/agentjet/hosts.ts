// Host matching: AgentJet names host folders and companion records after `os.uname().nodename`,
// which may or may not carry a domain. One rule for every caller.

/** Same machine: equal names, or equal first labels (`gpu-0` and `gpu-0.cluster.local`). */
export function sameHost(a: string, b: string): boolean {
  const short = (h: string) => h.toLowerCase().split('.')[0]!;
  return a.toLowerCase() === b.toLowerCase() || (short(a) !== '' && short(a) === short(b));
}

/**
 * `gpu-node-0` or `gpu-node-0_4242`: beast-logger appends `_<pid>` when another live process holds
 * the folder's lock (beast_logger/register.py `install_lock_file`). A host whose real name ends in
 * `_<digits>` is recognised when it is this machine.
 */
export function parseHostFolder(name: string, localHost: string): { host: string; pid?: number } {
  if (sameHost(name, localHost)) return { host: name };
  const m = /^(.+)_(\d+)$/.exec(name);
  return m ? { host: m[1]!, pid: Number(m[2]) } : { host: name };
}
