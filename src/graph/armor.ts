import { ApolloArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationRule } from 'graphql';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';

/**
 * What one GraphQL operation may ask for, checked before anything runs (parse and validation):
 * an anonymous caller cannot buy unbounded work with aliases, depth, size or directives. The
 * largest REST facade document stays well inside these limits (the e2e suite runs all of them).
 */
export const GRAPHQL_LIMITS = {
  maxTokens: 2000,
  maxDepth: 15,
  maxAliases: 15,
  maxDirectives: 50,
  maxCost: 5000,
} as const;

export function graphArmor<Context extends BaseContext>(options: {
  introspection: boolean;
}): { plugins: ApolloServerPlugin<Context>[]; validationRules: ValidationRule[]; parseOptions: { maxTokens: number } } {
  const armor = new ApolloArmor({
    // Tokens are counted by graphql-js's own parser (parseOptions): a clean 400, where the armor's parse hook answers 500.
    maxTokens: { enabled: false },
    // Introspection counts too (a standard introspection query is about 13 deep).
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, flattenFragments: true, ignoreIntrospection: false },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    // Suggestions ("did you mean ...") reveal the schema when introspection is off.
    blockFieldSuggestion: { enabled: !options.introspection },
  });
  const { plugins, validationRules } = armor.protect();
  // The armor's typings name the CommonJS build of @apollo/server; the plugins are the same objects.
  return {
    plugins: plugins as unknown as ApolloServerPlugin<Context>[],
    validationRules: options.introspection ? validationRules : [...validationRules, noIntrospection],
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
  };
}

/** Refuses `__schema` and `__type` (not `__typename`) when a deployment turns introspection off. */
const noIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(new GraphQLError('GraphQL introspection is disabled on this service', { nodes: [node] }));
    }
  },
});
