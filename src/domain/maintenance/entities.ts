import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * The last warning logged about one stuck item (stuck-work-warnings.ts): so that every instance, whichever
 * runs the check, warns once when the item crosses its threshold and then ever more rarely. The row
 * goes when the item is no longer stuck.
 */
@Entity({ tableName: 'stuck_work_warnings' })
export class StuckWorkWarning {
  /** A `StuckKind`. */
  @PrimaryKey({ type: 'text' })
  kind!: string;

  /** The record (seals, anchors), mail message or webhook delivery id. */
  @PrimaryKey({ type: 'uuid' })
  itemId!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  firstWarnedAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  lastWarnedAt!: Date;

  @Property({ type: 'integer' })
  warnings!: number;
}
