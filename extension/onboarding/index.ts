// First-hour features (issue 14): New Project, Check Environment, config scaffolding quick fixes.
// One call from extension.ts wires them all.
import type * as vscode from 'vscode';
import type { Services } from '../services';
import { registerNewProject } from './newproject/command';
import { registerCheckEnvironment } from './doctor/command';
import { registerScaffold } from './newproject/scaffold';

export function registerOnboarding(context: vscode.ExtensionContext, services: Services): void {
  registerNewProject(context, services);
  registerCheckEnvironment(context, services);
  registerScaffold(context);
}
