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
