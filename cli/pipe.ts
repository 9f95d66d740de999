// Output streams of the CLI: a closed pipe is a reader that has seen enough, not an error.
/**
 * A reader that went away (`agentjet log search F x | head -1`) ends the command quietly, as a
 * closed pipe ends `cat`; any other output error is reported once.
 */
export function quietOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void = (c) => process.exit(c)): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') exit(0);
    else {
      process.exitCode = 2;
      if (stream !== process.stderr) process.stderr.write(`agentjet: ${e.message}\n`);
    }
  });
}
