// Where a named function is in a source file, and how many lines it takes: read with TypeScript's parser, not a pattern.
import { readFileSync } from "node:fs";
import ts from "typescript";

/** A function found in a file: the line its name is on and its last line (1-based), and how many lines that is. */
export type FunctionSpan = { name: string; first: number; last: number; lines: number };

/**
 * The functions of a file named `name`, in the order they appear: declarations, named function
 * expressions, methods, and constants or object members holding an arrow or a function
 * expression; `Class.method` names a method of one class. Each spans from the line of its
 * name to the line of its closing brace; its doc comment is not counted.
 */
export function findFunctions(file: string, name: string): FunctionSpan[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const [owner, member] = name.includes(".") ? name.split(".") : [undefined, name];
  const found: FunctionSpan[] = [];
  const span = (node: ts.Node): void => {
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
    found.push({ name, first, last, lines: last - first + 1 });
  };
  const holdsFunction = (node: ts.Expression | undefined) => node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
  const visit = (node: ts.Node, inClass: string | undefined): void => {
    const named = (candidate: ts.Node | undefined) => candidate !== undefined && candidate.getText(source) === member && (owner === undefined || owner === inClass);
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && named(node.name) && node.body !== undefined) {
      span(node);
    } else if (ts.isVariableDeclaration(node) && named(node.name) && holdsFunction(node.initializer)) {
      span(node.parent.parent);
    } else if ((ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) && named(node.name) && holdsFunction(node.initializer)) {
      span(node);
    }
    const className = ts.isClassDeclaration(node) ? node.name?.getText(source) : inClass;
    ts.forEachChild(node, (child) => visit(child, className));
  };
  visit(source, undefined);
  return found;
}
