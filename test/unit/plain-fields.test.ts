import 'reflect-metadata';
import { isObjectType } from 'graphql';
import { declaredSchema } from '../../src/graph/print.js';

/**
 * type-graphql gives every plain field of an object type a resolver of its own unless the type says
 * `simpleResolvers: true`: a call through its middleware chain for each field of each listed record,
 * where graphql-jit otherwise reads the property inline. That cost a listing about a fifth of its
 * throughput, so every object type of ours says it, and only declared field resolvers resolve.
 */
describe('plain fields of object types', () => {
  it('are read straight from the object: only declared field resolvers and root fields have a resolver', async () => {
    const schema = await declaredSchema();
    const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map((type) => type?.name));
    const resolved: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__') || roots.has(type.name)) continue;
      for (const field of Object.values(type.getFields())) if (field.resolve) resolved.push(`${type.name}.${field.name}`);
    }
    // The one field resolver of the schema (an identicon's image, computed only when selected).
    expect(resolved).toEqual(['Identicon.svgDataUri']);
  });
});
