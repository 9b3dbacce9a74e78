// Where a JSON text stops being JSON: the line and column of its first error, which not every runtime's JSON.parse tells.

/** A place in a text: its line and column, both counted from 1. */
export type TextPlace = { line: number; column: number };

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The line and column of the first character at which `text` is not JSON (RFC 8259), the end
 * of the text when it stops short; undefined when it is JSON. Read without recursion, so a
 * deep text cannot overflow the stack; called only once JSON.parse has refused the text.
 */
export function syntaxErrorPlace(text: string): TextPlace | undefined {
  const at = firstError(text);
  if (at === -1) return undefined;
  let line = 1;
  let start = 0;
  for (let i = 0; i < at; i++) {
    if (text.charCodeAt(i) === LF) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: at - start + 1 };
}

/** The index of the first character that is not JSON, text.length when the text ends too soon, or -1. */
function firstError(text: string): number {
  // What comes next: a value, a value or `]`, a member name, a member name or `}`, or what follows a value.
  let expect: "value" | "value-or-end" | "name" | "name-or-end" | "after" = "value";
  // The open arrays and objects, as their opening characters.
  const open: string[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (i === text.length) return expect === "after" && open.length === 0 ? -1 : i;
    const char = text[i]!;
    if (expect === "after") {
      const top = open.at(-1);
      if (top === undefined) return i;
      if (char === ",") expect = top === "{" ? "name" : "value";
      else if (char === (top === "{" ? "}" : "]")) open.pop();
      else return i;
      i++;
      continue;
    }
    if ((expect === "name-or-end" && char === "}") || (expect === "value-or-end" && char === "]")) {
      open.pop();
      expect = "after";
      i++;
      continue;
    }
    if (expect === "name" || expect === "name-or-end") {
      if (char !== '"') return i;
      i = stringEnd(text, i);
      if (i < 0) return -i - 1;
      while (i < text.length && isSpace(text.charCodeAt(i))) i++;
      if (text[i] !== ":") return i;
      i++;
      expect = "value";
      continue;
    }
    if (char === "{" || char === "[") {
      open.push(char);
      expect = char === "{" ? "name-or-end" : "value-or-end";
      i++;
      continue;
    }
    i = char === '"' ? stringEnd(text, i) : char === "-" || isDigit(char) ? numberEnd(text, i) : literalEnd(text, i);
    if (i < 0) return -i - 1;
    expect = "after";
  }
}

/** The index past the string that opens at `start`, or -(index of its first error) - 1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code < SPACE) return -i - 1;
    if (code !== BACKSLASH) continue;
    i++;
    if (text[i] === "u") {
      for (let k = 1; k <= 4; k++) if (!/[0-9A-Fa-f]/.test(text[i + k] ?? "")) return -(i + k) - 1;
      i += 4;
    } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) return -i - 1;
  }
  return -text.length - 1;
}

/** The index past the number that begins at `start`, or -(index of its first error) - 1. */
function numberEnd(text: string, start: number): number {
  let i = start;
  if (text[i] === "-") i++;
  if (text[i] === "0") i++;
  else if (isDigit(text[i])) while (isDigit(text[i])) i++;
  else return -i - 1;
  if (text[i] === ".") {
    i++;
    if (!isDigit(text[i])) return -i - 1;
    while (isDigit(text[i])) i++;
  }
  if (text[i] === "e" || text[i] === "E") {
    i++;
    if (text[i] === "+" || text[i] === "-") i++;
    if (!isDigit(text[i])) return -i - 1;
    while (isDigit(text[i])) i++;
  }
  return i;
}

/** The index past `true`, `false` or `null` at `start`, or -(index of the first character that differs) - 1. */
function literalEnd(text: string, start: number): number {
  const literal = ["true", "false", "null"].find((word) => word[0] === text[start]);
  if (literal === undefined) return -start - 1;
  for (let k = 1; k < literal.length; k++) if (text[start + k] !== literal[k]) return -(start + k) - 1;
  return start + literal.length;
}

function isSpace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB;
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}
