/**
 * The YAML editor (CodeMirror 6), loaded only when a person opens one: the list pages stay
 * small. It edits the file's own text, so comments and layout survive a save.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';

export interface YamlEditor {
  text(): string;
  setText(text: string): void;
  /** marks one line (1-based) with the server's sentence; undefined clears every mark */
  markLine(line: number | undefined, message?: string): void;
  focus(): void;
  destroy(): void;
}

export function createEditor(parent: HTMLElement, text: string, label: string): YamlEditor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        history(),
        yaml(),
        syntaxHighlighting(defaultHighlightStyle),
        lintGutter(),
        // Tab indents (YAML is indentation); Esc then Tab leaves the editor, as CodeMirror documents.
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({ 'aria-label': label }),
      ],
    }),
  });
  return {
    text: () => view.state.doc.toString(),
    setText: (next) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } }),
    markLine: (line, message = '') => {
      if (line === undefined || line < 1 || line > view.state.doc.lines) {
        view.dispatch(setDiagnostics(view.state, []));
        return;
      }
      const at = view.state.doc.line(line);
      view.dispatch(setDiagnostics(view.state, [{ from: at.from, to: at.to, severity: 'error', message }]));
      view.dispatch({ selection: { anchor: at.from }, scrollIntoView: true });
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}

/**
 * The line a save's refusal is about: the YAML parser names it ("line 4"); a validation error
 * names a step ("step 3") or a key ("parameters…"), found here in the text the person sent.
 */
export function lineOfError(text: string, message: string): number | undefined {
  const direct = /\bline (\d+)/.exec(message);
  if (direct?.[1]) {
    return Number(direct[1]);
  }
  const lines = text.split('\n');
  const keyLine = (key: string) => {
    const at = lines.findIndex((l) => new RegExp(`^${key}\\s*:`).test(l));
    return at === -1 ? undefined : at + 1;
  };
  const step = /\bstep (\d+)\b/.exec(message) ?? /\bsteps\.(\d+)\b/.exec(message);
  if (step?.[1]) {
    // "step 3" counts from 1; a schema path "steps.2" from 0.
    const index = message.includes('steps.') && !/\bstep \d/.test(message) ? Number(step[1]) : Number(step[1]) - 1;
    const start = keyLine('steps');
    if (start !== undefined) {
      let indent: number | undefined;
      let seen = -1;
      for (let i = start; i < lines.length; i += 1) {
        const line = lines[i] ?? '';
        const match = /^(\s*)- /.exec(line);
        if (/^\S/.test(line) && !line.startsWith('-')) {
          break;
        }
        if (match && (indent === undefined || match[1]?.length === indent)) {
          indent = match[1]?.length;
          seen += 1;
          if (seen === index) {
            return i + 1;
          }
        }
      }
    }
    return start;
  }
  const key = /Invalid flow: (\w+)/.exec(message)?.[1];
  return key ? keyLine(key) : undefined;
}
