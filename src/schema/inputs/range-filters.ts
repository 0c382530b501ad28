import { Field, InputType, Int } from 'type-graphql';
import { DecimalScalar } from '../scalars/decimal.scalar.js';
import { TimestampScalar } from '../scalars/timestamp.scalar.js';

/** Exact values (any of) and/or an inclusive range. */
@InputType({ description: 'Matches any of `eq`, and/or the inclusive range gte..lte' })
export class IntFilter {
  @Field(() => [Int], { nullable: true, description: 'Any of these numbers' })
  eq?: number[];

  @Field(() => Int, { nullable: true, description: 'At least this number' })
  gte?: number;

  @Field(() => Int, { nullable: true, description: 'At most this number' })
  lte?: number;
}

@InputType({ description: 'Matches any of `eq`, and/or the inclusive range gte..lte, compared as decimals' })
export class DecimalFilter {
  @Field(() => [DecimalScalar], { nullable: true, description: 'Any of these amounts' })
  eq?: string[];

  @Field(() => DecimalScalar, { nullable: true, description: 'At least this amount' })
  gte?: string;

  @Field(() => DecimalScalar, { nullable: true, description: 'At most this amount' })
  lte?: string;
}

@InputType({ description: 'Matches any of `eq`, and/or the inclusive range gte..lte (Unix seconds)' })
export class TimestampFilter {
  @Field(() => [TimestampScalar], { nullable: true, description: 'Any of these instants' })
  eq?: Date[];

  @Field(() => TimestampScalar, { nullable: true, description: 'At or after this instant' })
  gte?: Date;

  @Field(() => TimestampScalar, { nullable: true, description: 'At or before this instant' })
  lte?: Date;
}
