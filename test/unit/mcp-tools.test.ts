import { scopeOf } from '../../src/domain/identity/operation-access.js';
import { TOOL_LIST } from '../../src/facade-mcp/index.js';
import { TOOLS } from '../../src/facade-mcp/tools/index.js';

describe('MCP tool catalogue', () => {
  it('has 27 tools: 13 named ones and seven preview tools each paired with an execute tool', () => {
    expect(TOOLS).toHaveLength(27);
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

  it('declares object input schemas with the spec\'s limits, and an output schema that admits the failure structure', () => {
    for (const tool of TOOL_LIST) {
      expect(tool.inputSchema.type).toBe('object');
      const anyOf = (tool.outputSchema as unknown as { anyOf: { properties: Record<string, unknown> }[] }).anyOf;
      expect(anyOf[1]!.properties).toEqual(expect.objectContaining({ error_code: expect.anything(), retry_action: expect.anything(), required_scopes: expect.anything() }));
    }
  });
});
