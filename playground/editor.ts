// The playground's code editor: a textarea with a line-number gutter, Tab
// inserting four spaces, and a compile error shown inline — the line marked
// in the gutter and behind the text, the message in a box just below it.

export interface InlineError {
  /** 1-based line and column of the error's start. */
  line: number;
  col: number;
  /** 1-based column just past the error's end when it ends on the same line. */
  endCol?: number;
  message: string;
  notes: readonly string[];
}

export interface EditorElements {
  code: HTMLTextAreaElement;
  gutterLines: HTMLElement;
  lineMark: HTMLElement;
  /** The squiggle under the error's columns. */
  errorSpan: HTMLElement;
  errorBox: HTMLElement;
}

const INDENT = '    ';

export class Editor {
  private error: InlineError | null = null;
  private lineCount = 0;

  constructor(private readonly el: EditorElements) {
    el.code.addEventListener('input', () => this.onInput());
    el.code.addEventListener('scroll', () => this.layout());
    el.code.addEventListener('keydown', (ev) => this.onKeyDown(ev));
    window.addEventListener('resize', () => this.layout());
    this.renderGutter();
  }

  get value(): string {
    return this.el.code.value;
  }

  set value(text: string) {
    this.el.code.value = text;
    this.el.code.scrollTop = 0;
    this.onInput();
  }

  /** Mark `err`'s line and show its message below it; the line is scrolled into view. */
  showError(err: InlineError): void {
    this.error = err;
    const { errorBox } = this.el;
    errorBox.replaceChildren();
    const head = document.createElement('div');
    head.className = 'message';
    head.textContent = `${err.line}:${err.col}: error: ${err.message}`;
    errorBox.append(head);
    if (err.notes.length) {
      const notes = document.createElement('div');
      notes.className = 'notes';
      notes.textContent = err.notes.map((n) => `note: ${n}`).join('\n');
      errorBox.append(notes);
    }
    errorBox.dataset['line'] = String(err.line);
    errorBox.dataset['col'] = String(err.col);
    this.scrollToLine(err.line);
    this.renderGutter();
    this.layout();
  }

  clearError(): void {
    if (!this.error) return;
    this.error = null;
    delete this.el.errorBox.dataset['line'];
    delete this.el.errorBox.dataset['col'];
    this.renderGutter();
    this.layout();
  }

  /** Pixel top of 1-based `line` inside the code area, at the current scroll. */
  lineTop(line: number): number {
    const { lineHeight, padTop } = this.metrics();
    return padTop + (line - 1) * lineHeight - this.el.code.scrollTop;
  }

  private metrics(): { lineHeight: number; padTop: number; padLeft: number; charWidth: number } {
    const cs = getComputedStyle(this.el.code);
    return {
      lineHeight: parseFloat(cs.lineHeight) || 20,
      padTop: parseFloat(cs.paddingTop) || 0,
      padLeft: parseFloat(cs.paddingLeft) || 0,
      charWidth: this.charWidth(cs.font),
    };
  }

  private charWidthCache: [string, number] | null = null;

  /** Width of one character of the editor's monospace font. */
  private charWidth(font: string): number {
    if (this.charWidthCache?.[0] === font) return this.charWidthCache[1];
    const ctx = document.createElement('canvas').getContext('2d');
    if (!ctx) return 8;
    ctx.font = font;
    const w = ctx.measureText('0'.repeat(100)).width / 100;
    this.charWidthCache = [font, w];
    return w;
  }

  private onInput(): void {
    this.clearError();
    this.renderGutter();
    this.layout();
  }

  private onKeyDown(ev: KeyboardEvent): void {
    if (ev.key !== 'Tab' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault();
    if (ev.shiftKey) this.dedent();
    else this.insert(INDENT);
  }

  /** Insert text at the caret, keeping the browser's undo history where it can. */
  private insert(text: string): void {
    const ta = this.el.code;
    // execCommand is deprecated but is still the only way to keep the textarea's undo stack.
    if (!document.execCommand('insertText', false, text)) {
      ta.setRangeText(text, ta.selectionStart, ta.selectionEnd, 'end');
      this.onInput();
    }
  }

  /** Shift+Tab: remove up to four leading spaces from the caret's line. */
  private dedent(): void {
    const ta = this.el.code;
    const start = ta.value.lastIndexOf('\n', ta.selectionStart - 1) + 1;
    const spaces = /^ {1,4}/.exec(ta.value.slice(start))?.[0].length ?? 0;
    if (!spaces) return;
    const caret = ta.selectionStart;
    ta.setSelectionRange(start, start + spaces);
    if (!document.execCommand('delete')) ta.setRangeText('', start, start + spaces, 'start');
    ta.setSelectionRange(Math.max(start, caret - spaces), Math.max(start, caret - spaces));
    this.onInput();
  }

  private renderGutter(): void {
    const n = this.el.code.value.split('\n').length;
    const { gutterLines } = this.el;
    if (n !== this.lineCount) {
      const frag = document.createDocumentFragment();
      for (let i = 1; i <= n; i++) {
        const d = document.createElement('div');
        d.textContent = String(i);
        frag.append(d);
      }
      gutterLines.replaceChildren(frag);
      this.lineCount = n;
    }
    gutterLines.querySelector('.error')?.classList.remove('error');
    if (this.error) gutterLines.children[this.error.line - 1]?.classList.add('error');
  }

  /** Keep the gutter, the line mark and the error box aligned with the scrolled text. */
  private layout(): void {
    const { code, gutterLines, lineMark, errorSpan, errorBox } = this.el;
    gutterLines.style.transform = `translateY(${-code.scrollTop}px)`;
    lineMark.hidden = errorSpan.hidden = errorBox.hidden = !this.error;
    if (!this.error) return;
    const { line, col, endCol } = this.error;
    const top = this.lineTop(line);
    const { lineHeight, padLeft, charWidth } = this.metrics();
    lineMark.style.top = `${top}px`;
    const text = code.value.split('\n')[line - 1] ?? '';
    const end = endCol !== undefined && endCol > col ? endCol : Math.max(col + 1, text.length + 1);
    errorSpan.style.top = `${top + lineHeight - 3}px`;
    errorSpan.style.left = `${padLeft + (col - 1) * charWidth - code.scrollLeft}px`;
    errorSpan.style.width = `${(end - col) * charWidth}px`;
    errorBox.style.top = `${top + lineHeight + 2}px`;
  }

  private scrollToLine(line: number): void {
    const ta = this.el.code;
    const { lineHeight, padTop } = this.metrics();
    const y = padTop + (line - 1) * lineHeight;
    // leave room below the line for the error box
    if (y < ta.scrollTop || y + 4 * lineHeight > ta.scrollTop + ta.clientHeight) ta.scrollTop = Math.max(0, y - ta.clientHeight / 3);
  }
}
