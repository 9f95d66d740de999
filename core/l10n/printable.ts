// Text from outside (a skill's name, a client's bytes, an interpreter's stderr) as one may print it:
// control characters (a terminal's escape sequences, line breaks, NUL) written as `\u001b` escapes
// (issue 39 R16). One owner for every place that quotes such text to a terminal or a client.

/** `text` with its control characters (C0, DEL, C1, U+2028/2029) as `\uXXXX`. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
