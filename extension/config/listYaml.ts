// The config server's background pass asks for a folder's YAML files (LIST_YAML_REQUEST): VS Code's
// file search answers, with the user's `files.exclude` and `search.exclude` and the folders a
// config never sits in (extension/gate/probe.ts), shallow files first, as the server's own walk did.
import * as vscode from 'vscode';
import type { ListYamlParams, ListYamlResult } from '../../core/protocol/config';
import { probeCandidates } from '../../core/config/probeOrder';
import { configExcludes } from '../gate/probe';

export async function listYaml(params: ListYamlParams): Promise<ListYamlResult> {
  const root = vscode.Uri.file(params.root);
  const max = Math.max(1, Math.floor(params.max));
  const found = await vscode.workspace.findFiles(new vscode.RelativePattern(root, '**/*.{yaml,yml}'), configExcludes(root), max + 1);
  const files = probeCandidates(found, (u) => u.path, true).map((u) => u.fsPath);
  return { files: files.slice(0, max), more: files.length > max };
}
