// Where a named function is in a source file, and how many lines it takes: read with TypeScript's parser, not a pattern.
import { readFileSync } from "node:fs";
import ts from "typescript";

/** A function found in a file: the line its name is on and its last line (1-based). */
export type FunctionSpan = { name: string; first: number; last: number; lines: number };

/**
 * The functions of a file named `name`, outermost first: declarations, methods, and
 * constants or object members holding an arrow or a function expression. Each spans from
 * the line of its name to the line of its closing brace; its doc comment is not counted.
 */
export function findFunctions(file: string, name: string): FunctionSpan[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionSpan[] = [];
  const span = (node: ts.Node): void => {
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
    found.push({ name, first, last, lines: last - first + 1 });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name?.getText(source) === name && node.body !== undefined) {
      span(node);
    } else if (
      (ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node)) &&
      node.name.getText(source) === name &&
      node.initializer !== undefined &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    ) {
      span(ts.isVariableDeclaration(node) ? node.parent.parent : node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
