import { GraphQLError } from 'graphql';

/**
 * The deepest nesting of braces and brackets a document may have: a selection at the armor's
 * maximum depth (15) with room for inline input objects and lists in its arguments. Deeper documents
 * cannot be valid, and refusing them here costs one pass over the text instead of a parse and a full
 * validation (a 1 KiB document 200 deep cost every rule a walk of the whole tree).
 */
const MAX_DOCUMENT_NESTING = 30;

/**
 * Refuses a GraphQL document whose braces and brackets nest deeper than `maxNesting`, before it is
 * parsed: one pass over the characters that skips strings, block strings and comments. Null when
 * the document may go on to the parser (which counts its tokens) and the validation rules.
 */
export function documentTooDeep(source: string, maxNesting = MAX_DOCUMENT_NESTING): GraphQLError | null {
  // Clients send the same few documents over and over: a document already found shallow is not walked again.
  const known = maxNesting === MAX_DOCUMENT_NESTING && source.length <= REMEMBERED_LENGTH;
  if (known && shallowDocuments.has(source)) return null;
  const refusal = nestingRefusal(source, maxNesting);
  if (known && refusal === null) {
    if (shallowDocuments.size >= REMEMBERED_DOCUMENTS) shallowDocuments.clear();
    shallowDocuments.add(source);
  }
  return refusal;
}

/** Documents found shallow lately: at most this many, each at most this long (2 to 4 MiB in all). */
const REMEMBERED_DOCUMENTS = 128;
const REMEMBERED_LENGTH = 16 * 1024;
const shallowDocuments = new Set<string>();

function nestingRefusal(source: string, maxNesting: number): GraphQLError | null {
  let depth = 0;
  for (let i = 0; i < source.length; i += 1) {
    const char = source.charCodeAt(i);
    if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      depth += 1;
      if (depth > maxNesting) {
        return new GraphQLError(`Syntax Error: Document nesting exceeds the limit of ${maxNesting} levels.`, {
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        });
      }
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      depth = Math.max(0, depth - 1);
    } else if (char === 0x23 /* # */) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
    } else if (char === 0x22 /* " */) {
      i = skipString(source, i);
    }
  }
  return null;
}

/** The index of the closing quote of the string (or block string) opening at `start`. */
function skipString(source: string, start: number): number {
  if (source.startsWith('"""', start)) {
    for (let i = start + 3; i < source.length; i += 1) {
      if (source.startsWith('\\"""', i)) i += 3;
      else if (source.startsWith('"""', i)) return i + 2;
    }
    return source.length;
  }
  for (let i = start + 1; i < source.length; i += 1) {
    const char = source.charCodeAt(i);
    if (char === 0x5c /* \ */) i += 1;
    else if (char === 0x22 || char === 0x0a) return i;
  }
  return source.length;
}
