import { scopeOf } from '../../src/domain/identity/operation-access.js';
import { TOOL_LIST } from '../../src/facade-mcp/index.js';
import { TOOLS } from '../../src/facade-mcp/tools/index.js';

type JsonSchema = { description?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[] };

describe('MCP tool catalogue', () => {
  it('has 35 tools: 21 named ones and seven preview tools each paired with an execute tool', () => {
    expect(TOOLS).toHaveLength(35);
    const previews = TOOLS.filter((tool) => tool.name.startsWith('preview_'));
    expect(previews).toHaveLength(7);
    for (const preview of previews) {
      const execute = /call (\w+) with the same arguments/.exec(preview.description)?.[1];
      const paired = TOOLS.find((tool) => tool.name === execute);
      expect(paired).toBeDefined();
      expect(Object.keys(paired!.input.shape)).toEqual(expect.arrayContaining([...Object.keys(preview.input.shape), 'confirmation_token', 'agreement_version']));
    }
  });

  it.each(TOOLS.map((tool) => [tool.name, tool] as const))('%s states the scopes its operations are declared with, and only those', (_name, tool) => {
    const scopes = new Set(tool.operations.map((operation) => scopeOf(operation.name)).filter((scope): scope is NonNullable<typeof scope> => scope !== null));
    for (const scope of scopes) expect(tool.description).toContain(`\`${scope}\``);
    for (const scope of ['create', 'retrieve', 'verify', 'amend', 'cancel'].filter((scope) => !scopes.has(scope as never))) {
      expect(tool.description).not.toMatch(new RegExp(`needs the \`${scope}\` scope`, "i"));
    }
  });

  it('describes every input property, nested ones and enums included, for the model and the host', () => {
    const undescribed: string[] = [];
    const walk = (schema: JsonSchema, path: string) => {
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (!property.description) undescribed.push(`${path}.${name}`);
        walk(property, `${path}.${name}`);
        if (property.items) walk(property.items, `${path}.${name}[]`);
        for (const alternative of property.anyOf ?? []) walk(alternative, `${path}.${name}`);
      }
    };
    for (const tool of TOOL_LIST) walk(tool.inputSchema, tool.name);
    expect(undescribed).toEqual([]);
  });

  it('hints what each tool does to the world: previews read, the card\'s ticket is a write, resolving a counter is destructive', () => {
    const hints = new Map(TOOL_LIST.map((tool) => [tool.name, tool.annotations!]));
    for (const [name, annotations] of hints) if (name.startsWith('preview_')) expect(annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(hints.get('get_agreement_card')).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(hints.get('resolve_counter')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['cancel_agreement', 'decline_agreement', 'apply_participant_change']) expect(hints.get(name)).toMatchObject({ destructiveHint: true });
    for (const tool of TOOL_LIST) expect(tool.title).toBeTruthy();
  });

  it('declares object input schemas with the spec\'s limits, and an output schema that admits the failure structure', () => {
    for (const tool of TOOL_LIST) {
      expect(tool.inputSchema.type).toBe('object');
      const anyOf = (tool.outputSchema as unknown as { anyOf: { properties: Record<string, unknown> }[] }).anyOf;
      expect(anyOf[1]!.properties).toEqual(expect.objectContaining({ error_code: expect.anything(), retry_action: expect.anything(), required_scopes: expect.anything() }));
    }
  });
});
