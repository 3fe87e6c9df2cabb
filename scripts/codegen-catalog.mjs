/**
 * GraphQL Code Generator plugin: the operation catalog's entries (src/graph/catalog/entries.ts), derived from its
 * documents. An operation preceded by `# catalog: <domain operation>` becomes the entry
 * `<operation's last word>: entry('<domain operation>', <Name>Document, (data) => data.<its one root field>)` of the
 * capability named after its file (bulk-sends.graphql: `bulkSends`); comment lines above that one become the entry's
 * doc comment, and a file's opening comment block (followed by a blank line) the capability's. An operation without
 * the line gets no entry (its entry is code: custom.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { parse, TokenKind } from "graphql";

const MARK = /^\s*catalog:\s*([a-zA-Z]+\.[a-zA-Z]+)\s*$/;

/** The comment lines directly above a token (no blank line between), top to bottom. */
function commentsAbove(token) {
  const lines = [];
  let line = token.line;
  for (
    let t = token.prev;
    t && t.kind === TokenKind.COMMENT && t.line === line - 1;
    t = t.prev
  ) {
    lines.unshift(t.value.trim());
    line = t.line;
  }
  return lines;
}

/** The file's opening comment block when a blank line parts it from the first definition. */
function headerOf(document) {
  const lines = [];
  let last = 0;
  for (
    let t = document.loc.startToken.next;
    t && t.kind === TokenKind.COMMENT;
    t = t.next
  ) {
    if (last && t.line !== last + 1) break;
    lines.push(t.value.trim());
    last = t.line;
  }
  const first = document.definitions[0];
  return lines.length > 0 && first && first.loc.startToken.line > last + 1
    ? lines
    : [];
}

const camel = (name) =>
  name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
const docComment = (lines, indent) =>
  lines.length > 0 ? `${indent}/** ${lines.join(" ")} */\n` : "";

export function plugin(_schema, documents) {
  const files = [...new Set(documents.map((file) => file.location))].sort();
  const imports = [];
  const capabilities = [];
  for (const file of files) {
    const document = parse(fs.readFileSync(file, "utf8"));
    const entries = [];
    const keys = new Set();
    for (const definition of document.definitions) {
      if (definition.kind !== "OperationDefinition") continue;
      const lines = commentsAbove(definition.loc.startToken);
      const mark = lines.length > 0 ? MARK.exec(lines[lines.length - 1]) : null;
      if (!mark) continue;
      const operation = mark[1];
      const key = operation.split(".")[1];
      const name = definition.name && definition.name.value;
      const fields = definition.selectionSet.selections;
      if (!name || fields.length !== 1 || fields[0].kind !== "Field") {
        throw new Error(
          `${file}: ${name || "an anonymous operation"} (catalog: ${operation}) needs a name and exactly one root field`,
        );
      }
      if (keys.has(key)) throw new Error(`${file}: two entries named ${key}`);
      keys.add(key);
      const field = (fields[0].alias || fields[0].name).value;
      imports.push(`${name}Document`);
      entries.push(
        `${docComment(lines.slice(0, -1), "  ")}  ${key}: entry('${operation}', ${name}Document, (data) => data.${field}),\n`,
      );
    }
    if (entries.length === 0) continue;
    const capability = camel(path.basename(file, ".graphql"));
    capabilities.push(
      `${docComment(headerOf(document), "")}export const ${capability} = {\n${entries.join("")}};\n`,
    );
  }
  return [
    `// Derived from src/graph/catalog/*.graphql by scripts/codegen-catalog.mjs (npm run codegen); do not edit.`,
    `import { entry } from './entry.js';`,
    `import {\n${[...new Set(imports)]
      .sort()
      .map((name) => `  ${name},\n`)
      .join("")}} from './generated.js';`,
    "",
    capabilities.join("\n"),
  ].join("\n");
}
