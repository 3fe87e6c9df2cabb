import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Mutation, Resolver } from 'type-graphql';
import type { MessengerInbox } from '../../domain/ceremonies/messenger-inbox.js';

/** Calls from outside platforms; they carry a shared secret instead of a principal. */
@Resolver()
export class InboundResolver {
  constructor(private readonly messenger: MessengerInbox) {}

  @Mutation(() => Boolean, {
    description:
      'Takes one messenger platform update (deduplicated on update_id); completes the pending messenger method whose challenge ' +
      'it carries when the sender is that participant. True also for duplicates and updates that complete nothing; ' +
      'forbidden without the configured webhook secret.',
  })
  async receiveMessengerUpdate(
    @Arg('secret', { description: 'The shared webhook secret' }) secret: string,
    @Arg('update', () => GraphQLJSONObject, { description: 'The update as the platform sent it' }) update: Record<string, unknown>,
  ): Promise<boolean> {
    await this.messenger.receive(secret, update);
    return true;
  }
}
