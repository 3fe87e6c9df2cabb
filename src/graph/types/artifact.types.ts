import { Field, Int, ObjectType } from 'type-graphql';
import { registerEnumType } from 'type-graphql';
import { BLOCKCHAIN_STATUSES, IDENTICON_KINDS } from '../../domain/vocabulary.js';
import { asEnum } from './enums.js';

const BlockchainStatusEnum = asEnum(BLOCKCHAIN_STATUSES);
const IdenticonKindEnum = asEnum(IDENTICON_KINDS);
registerEnumType(BlockchainStatusEnum, { name: 'BlockchainStatus' });
registerEnumType(IdenticonKindEnum, { name: 'IdenticonKind' });

@ObjectType('BlockchainRecord', { simpleResolvers: true, description: 'Where and how a sealed record was anchored on chain' })
export class BlockchainRecordObject {
  @Field(() => BlockchainStatusEnum)
  status!: string;

  @Field(() => String, { nullable: true })
  network!: string | null;

  @Field(() => String, { nullable: true })
  txHash!: string | null;

  @Field(() => Int, { nullable: true })
  blockNumber!: number | null;

  @Field(() => String, { nullable: true })
  explorerUrl!: string | null;

  @Field(() => Date, { nullable: true })
  writtenAt!: Date | null;

  @Field()
  onChainFullText!: boolean;

  @Field()
  onChainIncludeVerifiedParties!: boolean;

  @Field(() => String, { nullable: true })
  metadataHash!: string | null;

  @Field(() => Int)
  retryCount!: number;

  @Field(() => Date, { nullable: true })
  nextRetryAt!: Date | null;
}

@ObjectType('Identicon', { simpleResolvers: true, description: 'Metadata of a document or signature identicon; image bytes only on request' })
export class IdenticonObject {
  @Field(() => IdenticonKindEnum)
  kind!: string;

  @Field()
  digest!: string;

  @Field()
  shortHash!: string;

  @Field(() => Int)
  width!: number;

  @Field(() => Int)
  height!: number;

  @Field()
  altText!: string;

  @Field()
  available!: boolean;

}

@ObjectType('ShareCard', { simpleResolvers: true, description: 'Metadata of the private share card; never a storage path or download URL' })
export class ShareCardObject {
  @Field()
  filename!: string;

  @Field()
  contentType!: string;

  @Field(() => Int)
  width!: number;

  @Field(() => Int)
  height!: number;

  @Field()
  hash!: string;

  @Field()
  generatedAt!: string;

  @Field()
  available!: boolean;
}
