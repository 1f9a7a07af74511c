// The playground's code editor: CodeMirror 6 with Python highlighting, undo,
// search (Ctrl/⌘+F), bracket matching, Tab indenting by four spaces and
// phone input (CodeMirror's contenteditable), plus an error mark: the line
// tinted, its columns underlined, its gutter number in red and the message
// in a box just below the line.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import { bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { EditorState, Prec, RangeSetBuilder, StateEffect, StateField, type Extension } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  GutterMarker,
  WidgetType,
  drawSelection,
  gutterLineClass,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  type DecorationSet,
} from '@codemirror/view';

export interface InlineError {
  /** 1-based line and column of the error's start. */
  line: number;
  col: number;
  /** 1-based column just past the error's end when it ends on the same line. */
  endCol?: number;
  /** The heading: `3:9: error: NameError: …`, or a run-time error's text. */
  message: string;
  notes: readonly string[];
  /** 'compile' or 'run' (the box says which). */
  phase: string;
}

const setError = StateEffect.define<InlineError | null>();

class ErrorBox extends WidgetType {
  constructor(readonly err: InlineError) {
    super();
  }
  override eq(other: ErrorBox): boolean {
    return other.err === this.err;
  }
  toDOM(): HTMLElement {
    const box = document.createElement('div');
    box.className = 'cm-error-box';
    box.setAttribute('role', 'alert');
    box.dataset['line'] = String(this.err.line);
    box.dataset['phase'] = this.err.phase;
    const head = document.createElement('div');
    head.className = 'message';
    head.textContent = this.err.message;
    box.append(head);
    if (this.err.notes.length) {
      const notes = document.createElement('div');
      notes.className = 'notes';
      notes.textContent = this.err.notes.map((n) => `note: ${n}`).join('\n');
      box.append(notes);
    }
    return box;
  }
}

const errorGutter = new (class extends GutterMarker {
  override elementClass = 'cm-error-gutter';
})();

/** The error shown, until the text changes. */
const errorField = StateField.define<InlineError | null>({
  create: () => null,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setError)) return e.value;
    return tr.docChanged ? null : value;
  },
});

function errorDecorations(state: EditorState): DecorationSet {
  const err = state.field(errorField);
  if (!err || err.line < 1 || err.line > state.doc.lines) return Decoration.none;
  const line = state.doc.line(err.line);
  const from = Math.min(line.to, line.from + Math.max(0, err.col - 1));
  const to = err.endCol !== undefined && err.endCol > err.col ? Math.min(line.to, line.from + err.endCol - 1) : line.to;
  const b = new RangeSetBuilder<Decoration>();
  b.add(line.from, line.from, Decoration.line({ class: 'cm-error-line' }));
  if (to > from) b.add(from, to, Decoration.mark({ class: 'cm-error-span' }));
  b.add(line.to, line.to, Decoration.widget({ widget: new ErrorBox(err), block: true, side: 1 }));
  return b.finish();
}

const errorExtension: Extension = [
  errorField,
  EditorView.decorations.compute([errorField], errorDecorations),
  gutterLineClass.compute([errorField], (state) => {
    const err = state.field(errorField);
    if (!err || err.line < 1 || err.line > state.doc.lines) return new RangeSetBuilder<GutterMarker>().finish();
    const b = new RangeSetBuilder<GutterMarker>();
    const from = state.doc.line(err.line).from;
    b.add(from, from, errorGutter);
    return b.finish();
  }),
];

export interface EditorOptions {
  parent: HTMLElement;
  /** Ctrl/⌘+Enter. */
  onRun: () => void;
  /** After each change of the text. */
  onChange: (text: string) => void;
}

export class Editor {
  readonly view: EditorView;

  constructor(opts: EditorOptions) {
    this.view = new EditorView({
      parent: opts.parent,
      state: EditorState.create({
        doc: '',
        extensions: [
          Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (opts.onRun(), true) }])),
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          search({ top: true }),
          python(),
          indentUnit.of('    '),
          EditorState.tabSize.of(4),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
          EditorView.contentAttributes.of({ 'aria-label': 'Python source', autocapitalize: 'off', autocorrect: 'off', spellcheck: 'false' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) opts.onChange(u.state.doc.toString());
          }),
          errorExtension,
        ],
      }),
    });
  }

  get value(): string {
    return this.view.state.doc.toString();
  }

  /** Replace the text (one undoable change). */
  set value(text: string) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text }, selection: { anchor: 0 }, scrollIntoView: true });
  }

  /** Mark `err`'s line and show its message below it; the line is scrolled into view. */
  showError(err: InlineError): void {
    const line = Math.min(Math.max(1, err.line), this.view.state.doc.lines);
    const pos = this.view.state.doc.line(line).from;
    this.view.dispatch({ effects: [setError.of(err), EditorView.scrollIntoView(pos, { y: 'center' })] });
  }

  clearError(): void {
    if (this.view.state.field(errorField)) this.view.dispatch({ effects: setError.of(null) });
  }

  focus(): void {
    this.view.focus();
  }
}
