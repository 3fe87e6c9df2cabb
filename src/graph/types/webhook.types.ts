import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/events.js';

const EVENT_TYPES = `One of ${WEBHOOK_EVENT_TYPES.join(', ')}`;

@ObjectType('WebhookEndpoint', { simpleResolvers: true, description: "A URL the caller's records' events are pushed to, signed per the Standard Webhooks specification" })
export class WebhookEndpointObject {
  @Field(() => ID)
  id!: string;

  @Field()
  url!: string;

  @Field(() => [String], { description: `The event types it receives. ${EVENT_TYPES}` })
  events!: string[];

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field({ description: 'False once disabled (by its owner, after a 410 Gone, or after failing every delivery for too long): nothing is sent to it' })
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: 'owner, gone or failing' })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true })
  disabledAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'After a rotation, the previous secret signs too until then' })
  previousSecretExpiresAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('WebhookEndpointWithSecret', { simpleResolvers: true })
export class WebhookEndpointWithSecretObject {
  @Field(() => WebhookEndpointObject)
  webhook!: WebhookEndpointObject;

  @Field({ description: 'The signing secret (whsec_ and base64). Shown once: at creation and at each rotation.' })
  secret!: string;
}

@ObjectType('WebhookDelivery', { simpleResolvers: true, description: 'One event for one endpoint, and what became of sending it' })
export class WebhookDeliveryObject {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The webhook-id header and the payload id: the same on every attempt' })
  eventId!: string;

  @Field()
  type!: string;

  @Field(() => ID, { nullable: true })
  recordId!: string | null;

  @Field({ description: 'pending, delivered or failed (no attempt left, or the endpoint was disabled)' })
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => Int, { nullable: true })
  lastStatusCode!: number | null;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => Date, { nullable: true })
  lastAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true })
  nextAttemptAt!: Date | null;

  @Field(() => Date, { nullable: true })
  deliveredAt!: Date | null;

  @Field(() => Date, { nullable: true })
  failedAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('WebhookDeliveryPage', { simpleResolvers: true })
export class WebhookDeliveryPageObject {
  @Field(() => [WebhookDeliveryObject])
  deliveries!: WebhookDeliveryObject[];

  @Field(() => Int, { description: 'Deliveries of the endpoint in all' })
  total!: number;
}

@InputType('CreateWebhookInput')
export class CreateWebhookInput {
  @Field({ description: 'https URL (plain http and non-public addresses only for hosts the operator allows)' })
  url!: string;

  @Field(() => [String], { description: EVENT_TYPES })
  events!: string[];

  @Field(() => String, { nullable: true })
  description?: string | null;
}

@InputType('UpdateWebhookInput')
export class UpdateWebhookInput {
  @Field(() => String, { nullable: true })
  url?: string | null;

  @Field(() => [String], { nullable: true, description: EVENT_TYPES })
  events?: string[] | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'false pauses it (its pending deliveries fail); true enables it again' })
  enabled?: boolean | null;
}
