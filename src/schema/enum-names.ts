/** `orderDate` → `ORDER_DATE`: GraphQL enum values are SCREAMING_CASE, the names the code uses camelCase. */
export const screamingCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
