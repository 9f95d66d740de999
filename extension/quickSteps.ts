// Several questions asked in one quick-input widget. Each step is shown before the step it
// follows is disposed, so the widget never closes in between. A close hands the focus back to
// where the questions came from; a webview (the run dashboard) takes it back late, after the
// next box has opened, and that box then sits on screen deaf to the keyboard.
import * as vscode from 'vscode';

export interface AskOptions {
  title: string;
  value?: string;
  /** A message while the value is not acceptable; undefined when it is. */
  validate?: (value: string) => string | undefined;
}

export class QuickSteps implements vscode.Disposable {
  private current: vscode.QuickInput | undefined;

  pick<T extends vscode.QuickPickItem>(items: readonly T[], title: string): Promise<T | undefined> {
    const qp = vscode.window.createQuickPick<T>();
    qp.title = title;
    qp.items = items;
    qp.matchOnDescription = true;
    return this.step(qp, (done) => [qp.onDidAccept(() => done(qp.selectedItems[0] ?? qp.activeItems[0]))]);
  }

  ask(o: AskOptions): Promise<string | undefined> {
    const box = vscode.window.createInputBox();
    box.title = o.title;
    box.value = o.value ?? '';
    const check = (): string | undefined => (box.validationMessage = o.validate?.(box.value));
    return this.step(box, (done) => [
      box.onDidChangeValue(check),
      box.onDidAccept(() => {
        if (check() === undefined) done(box.value);
      }),
    ]);
  }

  private step<R>(input: vscode.QuickInput, wire: (done: (r: R | undefined) => void) => vscode.Disposable[]): Promise<R | undefined> {
    // Kept open when the focus moves: a webview that asked may take the focus back.
    input.ignoreFocusOut = true;
    return new Promise<R | undefined>((resolve) => {
      let settled = false;
      const subs: vscode.Disposable[] = [];
      const done = (r: R | undefined): void => {
        if (settled) return;
        settled = true;
        for (const s of subs) s.dispose();
        if (r !== undefined) {
          // Answered: stays on screen, busy, until the next step replaces it or the flow ends.
          input.enabled = false;
          input.busy = true;
        }
        resolve(r);
      };
      subs.push(
        ...wire(done),
        input.onDidHide(() => done(undefined)),
      );
      const before = this.current;
      this.current = input;
      input.show(); // takes the widget over from `before` without closing it
      before?.dispose();
    });
  }

  dispose(): void {
    this.current?.dispose();
    this.current = undefined;
  }
}
