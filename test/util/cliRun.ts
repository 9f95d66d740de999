// Runs an `agentjet` subcommand in this process with its stdout and stderr captured, and for the
// time of the call the given environment variables set (undefined: unset).
import { commands } from '../../cli/commands';

export async function runCli(
  name: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) throw new Error(`no subcommand ${name}`);
  let out = '';
  let err = '';
  const [w1, w2] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  const old = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const setEnv = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  };
  setEnv(env);
  // The CLI writes strings; the test runner's own reports (Buffers, over stdout in a child process)
  // go through, or a command that awaits would capture them.
  process.stdout.write = ((s: string | Uint8Array, ...rest: never[]) =>
    typeof s === 'string' ? ((out += s), true) : w1(s, ...rest)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array, ...rest: never[]) =>
    typeof s === 'string' ? ((err += s), true) : w2(s, ...rest)) as typeof process.stderr.write;
  try {
    return { code: await cmd.run(args), out, err };
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
    setEnv(old);
  }
}
