import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { described } from '../describe.js';
import type { GraphContext } from '../context.js';
import type { WebhookService } from '../../domain/webhooks/webhook-service.js';
import {
  CreateWebhookInput,
  UpdateWebhookInput,
  WebhookDeliveryObject,
  WebhookDeliveryPageObject,
  WebhookEndpointObject,
  WebhookEndpointWithSecretObject,
} from '../types/webhook.types.js';

@Resolver()
export class WebhookResolver {
  constructor(private readonly service: WebhookService) {}

  @Query(() => [WebhookEndpointObject], { description: described("The caller's webhook endpoints, newest first (never their secrets)", 'webhooks.list') })
  webhooks(@Ctx() { principal }: GraphContext): Promise<WebhookEndpointObject[]> {
    return this.service.list(principal);
  }

  @Query(() => WebhookEndpointObject, { description: described('One webhook endpoint of the caller', 'webhooks.get') })
  webhook(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<WebhookEndpointObject> {
    return this.service.get(principal, id);
  }

  @Mutation(() => WebhookEndpointWithSecretObject, { description: described('Registers a webhook endpoint; its signing secret is returned once', 'webhooks.create') })
  createWebhook(@Ctx() { principal }: GraphContext, @Arg('input', () => CreateWebhookInput) input: CreateWebhookInput): Promise<WebhookEndpointWithSecretObject> {
    return this.service.create(principal, input);
  }

  @Mutation(() => WebhookEndpointObject, { description: described('Changes, pauses or enables again a webhook endpoint', 'webhooks.update') })
  updateWebhook(
    @Ctx() { principal }: GraphContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookInput) input: UpdateWebhookInput,
  ): Promise<WebhookEndpointObject> {
    return this.service.update(principal, id, input);
  }

  @Mutation(() => Boolean, { description: described('Deletes a webhook endpoint and its deliveries: nothing more is sent to it', 'webhooks.delete') })
  async deleteWebhook(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.service.remove(principal, id);
    return true;
  }

  @Mutation(() => WebhookEndpointWithSecretObject, { description: described('A new signing secret, returned once; the previous one signs alongside it for 24 hours', 'webhooks.rotateSecret') })
  rotateWebhookSecret(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<WebhookEndpointWithSecretObject> {
    return this.service.rotateSecret(principal, id);
  }

  @Query(() => WebhookDeliveryPageObject, { description: described("A webhook endpoint's deliveries, newest first", 'webhooks.deliveries') })
  webhookDeliveries(
    @Ctx() { principal }: GraphContext,
    @Arg('id', () => ID) id: string,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 20 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
  ): Promise<WebhookDeliveryPageObject> {
    return this.service.deliveries(principal, id, { limit, offset });
  }

  @Mutation(() => WebhookDeliveryObject, { description: described('Sends a delivery again, as a new series of attempts', 'webhooks.redeliver') })
  redeliverWebhookDelivery(
    @Ctx() { principal }: GraphContext,
    @Arg('id', () => ID) id: string,
    @Arg('deliveryId', () => ID) deliveryId: string,
  ): Promise<WebhookDeliveryObject> {
    return this.service.redeliver(principal, id, deliveryId);
  }

  @Mutation(() => WebhookDeliveryObject, { description: described('Sends a webhook.test event to the endpoint', 'webhooks.test') })
  testWebhook(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<WebhookDeliveryObject> {
    return this.service.sendTest(principal, id);
  }
}
