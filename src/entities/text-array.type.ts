import { ArrayType, type Platform, type TransformContext } from '@mikro-orm/core';

/**
 * `text[]` columns whose values are kept exactly. MikroORM's default array literal leaves
 * `NULL`, blanks at either end and backslash escapes unquoted, so PostgreSQL would read a tag
 * "NULL" as a null element or trim " a" to "a". Here every element is double-quoted with `\` and
 * `"` escaped, which PostgreSQL reads back verbatim.
 */
export class TextArrayType extends ArrayType<string> {
  override convertToDatabaseValue(
    value: string[] | null,
    platform: Platform,
    context?: TransformContext,
  ): string | null {
    if (!Array.isArray(value)) return super.convertToDatabaseValue(value, platform, context);
    return `{${value.map((v) => `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
  }

  override getColumnType(): string {
    return 'text[]';
  }
}
