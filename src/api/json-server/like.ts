// `_like`: a client's regular expression, matched in time linear in the text, so that no
// pattern can hold the process. json-server hands the pattern to the runtime's backtracking
// engine, where `(a+)+$` over a long text takes longer than the age of the universe; here the
// pattern is read into a small automaton and every path through it is followed at once
// (Thompson's construction), so a text of n characters costs at most n times its states.
import { HttpError } from "../errors.ts";

/**
 * The longest pattern taken, the most states its automaton may have and the most times a
 * `{n,m}` repeats (past any of them the pattern is refused with 400), and the work of matching
 * one value: its automaton's states times the characters read. A value is read up to
 * `work / states` characters (100,000 for a three-letter literal, about 2,600 for
 * `[a-z]{1,50}x`), a few milliseconds of one core, so that no single value, however long, holds
 * the process between two records of a scan (Deno's node:http needs several turns of the event
 * loop to answer a request, each waiting on one slice).
 */
export const LIKE_LIMITS = { pattern: 200, states: 256, repeat: 50, work: 400_000 } as const;

/**
 * A compiled `_like` pattern: whether a text holds a match, case-insensitively, as
 * `new RegExp(pattern, "i").test` says, within its first `work / states` characters (a `$`
 * matches only at the text's own end, never where the reading stops).
 */
export type Like = (text: string) => boolean;

type Test = (char: string) => boolean;
type Node =
  | { kind: "char"; test: Test }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number }
  | { kind: "start" }
  | { kind: "end" };

type State =
  | { kind: "char"; test: Test; next: number }
  | { kind: "split"; a: number; b: number }
  | { kind: "start" | "end"; next: number }
  | { kind: "match" };

/** Reads a pattern into its matcher, or throws a 400 naming what this server does not take. */
export function compileLike(pattern: string): Like {
  if (pattern.length > LIKE_LIMITS.pattern) refuse(`is longer than ${LIKE_LIMITS.pattern} characters`);
  const parser = { text: pattern, at: 0 };
  const node = parseAlternation(parser);
  if (parser.at < pattern.length) refuse(`has an unmatched ")" at ${parser.at}`);
  const states: State[] = [];
  const match = add(states, { kind: "match" });
  const start = compile(node, match, states);
  const read = Math.floor(LIKE_LIMITS.work / states.length);
  return (text) => run(states, start, (text.length > read ? text.slice(0, read) : text).toLowerCase(), text.length);
}

function refuse(what: string): never {
  throw new HttpError("INVALID_QUERY", `A _like pattern ${what}; it takes literals, ., [classes], \\d \\w \\s, ^ $, groups, | and the quantifiers * + ? {n,m}`);
}

type Parser = { text: string; at: number };

function parseAlternation(parser: Parser): Node {
  const options = [parseSequence(parser)];
  while (parser.text[parser.at] === "|") {
    parser.at++;
    options.push(parseSequence(parser));
  }
  return options.length === 1 ? options[0]! : { kind: "alt", options };
}

function parseSequence(parser: Parser): Node {
  const items: Node[] = [];
  while (parser.at < parser.text.length && parser.text[parser.at] !== "|" && parser.text[parser.at] !== ")") {
    let atom = parseAtom(parser);
    for (;;) {
      const quantifier = readQuantifier(parser);
      if (quantifier === undefined) break;
      if (atom.kind === "start" || atom.kind === "end") refuse("repeats an anchor");
      atom = { kind: "repeat", node: atom, ...quantifier };
    }
    items.push(atom);
  }
  return items.length === 1 ? items[0]! : { kind: "seq", items };
}

function readQuantifier(parser: Parser): { min: number; max: number } | undefined {
  const char = parser.text[parser.at];
  let bounds: { min: number; max: number } | undefined;
  if (char === "*") bounds = { min: 0, max: Infinity };
  else if (char === "+") bounds = { min: 1, max: Infinity };
  else if (char === "?") bounds = { min: 0, max: 1 };
  else if (char === "{") {
    const found = /^\{(\d+)(,(\d*))?\}/.exec(parser.text.slice(parser.at));
    if (found === null) return undefined;
    const min = Number(found[1]);
    const max = found[2] === undefined ? min : found[3] === "" ? Infinity : Number(found[3]);
    if (min > LIKE_LIMITS.repeat || (max !== Infinity && max > LIKE_LIMITS.repeat)) refuse(`repeats more than ${LIKE_LIMITS.repeat} times`);
    if (max < min) refuse("has a {n,m} with m below n");
    parser.at += found[0].length - 1;
    bounds = { min, max };
  }
  if (bounds === undefined) return undefined;
  parser.at++;
  // A lazy quantifier matches the same texts: only which match is found first differs.
  if (parser.text[parser.at] === "?") parser.at++;
  return bounds;
}

function parseAtom(parser: Parser): Node {
  const char = parser.text[parser.at++]!;
  switch (char) {
    case "(": {
      if (parser.text.startsWith("?:", parser.at)) parser.at += 2;
      else if (parser.text[parser.at] === "?") refuse("has a look-around or a named group");
      const inner = parseAlternation(parser);
      if (parser.text[parser.at] !== ")") refuse('has an unclosed "("');
      parser.at++;
      return inner;
    }
    case "[":
      return { kind: "char", test: parseClass(parser) };
    case ".":
      return { kind: "char", test: (c) => c !== "\n" && c !== "\r" };
    case "^":
      return { kind: "start" };
    case "$":
      return { kind: "end" };
    case "\\":
      return { kind: "char", test: parseEscape(parser) };
    case "*":
    case "+":
    case "?":
      return refuse(`has "${char}" with nothing to repeat`);
    default:
      return { kind: "char", test: literal(char) };
  }
}

/** The test of an escape after its backslash: a class (\d \w \s and their negations) or the character itself. */
function parseEscape(parser: Parser): Test {
  const char = parser.text[parser.at++];
  if (char === undefined) refuse("ends with a lone \\");
  switch (char) {
    case "d":
      return isDigit;
    case "D":
      return (c) => !isDigit(c);
    case "w":
      return isWord;
    case "W":
      return (c) => !isWord(c);
    case "s":
      return isSpace;
    case "S":
      return (c) => !isSpace(c);
    case "t":
      return literal("\t");
    case "n":
      return literal("\n");
    case "r":
      return literal("\r");
  }
  if (/[A-Za-z0-9]/.test(char)) refuse(`has the escape \\${char}`);
  return literal(char);
}

function parseClass(parser: Parser): Test {
  const negated = parser.text[parser.at] === "^";
  if (negated) parser.at++;
  const tests: Test[] = [];
  let first = true;
  while (parser.at < parser.text.length && (parser.text[parser.at] !== "]" || first)) {
    first = false;
    const from = classMember(parser);
    if (parser.text[parser.at] === "-" && parser.text[parser.at + 1] !== "]" && parser.at + 1 < parser.text.length && typeof from === "string") {
      parser.at++;
      const to = classMember(parser);
      if (typeof to !== "string" || to < from) refuse("has a bad range in a [class]");
      const low = from.toLowerCase();
      const high = to.toLowerCase();
      tests.push((c) => (c >= from && c <= to) || (c >= low && c <= high) || (c.toUpperCase() >= from && c.toUpperCase() <= to));
    } else tests.push(typeof from === "string" ? literal(from) : from);
  }
  if (parser.text[parser.at] !== "]") refuse('has an unclosed "["');
  parser.at++;
  return negated ? (c) => !tests.some((test) => test(c)) : (c) => tests.some((test) => test(c));
}

/** One member of a class: a character, or an escape's test. */
function classMember(parser: Parser): string | Test {
  const char = parser.text[parser.at++]!;
  if (char !== "\\") return char;
  const escaped = parser.text[parser.at];
  if (escaped !== undefined && "dDwWsS".includes(escaped)) return parseEscape(parser);
  parser.at++;
  if (escaped === undefined) refuse("ends with a lone \\");
  return escaped === "t" ? "\t" : escaped === "n" ? "\n" : escaped === "r" ? "\r" : escaped;
}

/** The test of one character, case-insensitively: texts are lowered before they are matched. */
function literal(char: string): Test {
  const lower = char.toLowerCase();
  return (c) => c === lower;
}

function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}

function isWord(c: string): boolean {
  return isDigit(c) || (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
}

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v" || c === "\u00a0";
}

/**
 * The most steps compiling one pattern may take. A group that compiles to no state, such as `()`,
 * adds nothing for the state bound to see, but repeating it nested (`((()){50}){50}…`) takes
 * 50 to the power of its depth steps: those are counted too.
 */
const COMPILE_STEPS = 4_096;

/** The states compiled so far, and how many steps compiling has taken. */
type States = State[] & { steps?: number };

function add(states: States, state: State): number {
  if (states.length >= LIKE_LIMITS.states) refuse(`needs more than ${LIKE_LIMITS.states} states`);
  states.push(state);
  return states.length - 1;
}

/** The automaton of `node`, going on to state `next`; its first state. */
function compile(node: Node, next: number, states: States): number {
  states.steps = (states.steps ?? 0) + 1;
  if (states.steps > COMPILE_STEPS) refuse(`takes more than ${COMPILE_STEPS} steps to compile`);
  switch (node.kind) {
    case "char":
      return add(states, { kind: "char", test: node.test, next });
    case "start":
    case "end":
      return add(states, { kind: node.kind, next });
    case "seq": {
      let at = next;
      for (let i = node.items.length - 1; i >= 0; i--) at = compile(node.items[i]!, at, states);
      return at;
    }
    case "alt": {
      let at = compile(node.options.at(-1)!, next, states);
      for (let i = node.options.length - 2; i >= 0; i--) at = add(states, { kind: "split", a: compile(node.options[i]!, next, states), b: at });
      return at;
    }
    case "repeat": {
      let at = next;
      if (node.max === Infinity) {
        const loop = add(states, { kind: "split", a: -1, b: next });
        (states[loop] as { a: number }).a = compile(node.node, loop, states);
        at = loop;
      } else at = optionalCopies(node, next, states);
      for (let i = 0; i < node.min; i++) at = compile(node.node, at, states);
      return at;
    }
  }
}

/** `max - min` optional copies of a node, each of which may end the repetition: x{0,3} is (x(x(x)?)?)?. */
function optionalCopies(node: { node: Node; min: number; max: number }, next: number, states: State[]): number {
  let at = next;
  for (let i = node.min; i < node.max; i++) at = add(states, { kind: "split", a: compile(node.node, at, states), b: next });
  return at;
}

/** Whether some path through the automaton from `start` reaches its match over part of `text`, the first characters of a text `length` long. */
function run(states: State[], start: number, text: string, length: number): boolean {
  let current: number[] = [];
  let following: number[] = [];
  const seen = new Int32Array(states.length).fill(-1);
  let generation = 0;
  const enter = (list: number[], state: number, at: number): boolean => {
    // A loop of splits with no character between (`(a*)*`) is entered once per position.
    if (seen[state] === generation) return false;
    seen[state] = generation;
    const held = states[state]!;
    switch (held.kind) {
      case "match":
        return true;
      case "split":
        return enter(list, held.a, at) || enter(list, held.b, at);
      case "start":
        return at === 0 && enter(list, held.next, at);
      case "end":
        return at === length && enter(list, held.next, at);
      case "char":
        list.push(state);
        return false;
    }
  };
  for (let at = 0; ; at++) {
    generation++;
    // Unanchored, as RegExp.test is: a match may begin at any position.
    for (const state of current) if (enter(following, state, at)) return true;
    if (enter(following, start, at)) return true;
    if (at === text.length) return false;
    [current, following] = [following, []];
    const char = text[at]!;
    const stepped: number[] = [];
    for (const state of current) {
      const held = states[state] as { test: Test; next: number };
      if (held.test(char)) stepped.push(held.next);
    }
    current = stepped;
  }
}
