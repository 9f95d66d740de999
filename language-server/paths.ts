// Document URIs of the config server as file paths.
import { URI } from 'vscode-uri';

/** The file path of a `file:` URI; undefined for any other scheme or a malformed URI. */
export function filePath(uri: string): string | undefined {
  try {
    const u = URI.parse(uri);
    return u.scheme === 'file' ? u.fsPath : undefined;
  } catch {
    return undefined;
  }
}
