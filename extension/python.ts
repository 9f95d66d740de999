// The Python extension's active interpreter for a folder, shared by the config server (built-in
// class references) and launching. Bounded: that extension's API can stay pending while it
// activates, and neither feature may hang on it.
import * as vscode from 'vscode';

const API_WAIT_MS = 5000;

export async function pythonExtensionEnv(
  folder: vscode.WorkspaceFolder | undefined,
  token?: vscode.CancellationToken,
): Promise<string | undefined> {
  if (!vscode.extensions.getExtension('ms-python.python')) return undefined;
  const { PythonExtension } = await import('@vscode/python-extension');
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const api = await Promise.race([
      PythonExtension.api(),
      new Promise<undefined>((r) => {
        timer = setTimeout(() => r(undefined), API_WAIT_MS);
      }),
    ]);
    if (!api || token?.isCancellationRequested) return undefined;
    const active = api.environments.getActiveEnvironmentPath(folder?.uri);
    const env = await api.environments.resolveEnvironment(active);
    return env?.executable.uri?.fsPath ?? active.path;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
