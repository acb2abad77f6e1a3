/**
 * Loads graphql-js in its production build: outside production NODE_ENV is unset, and
 * graphql then checks every `instanceof` of its hot paths a second way (to report two
 * copies of the package). Imported first by the entry points, before anything loads
 * graphql; NODE_ENV is set only while graphql reads it, so nothing else sees it changed.
 */
const previous = process.env.NODE_ENV;
process.env.NODE_ENV = 'production';
await import('graphql');
if (previous === undefined) delete process.env.NODE_ENV;
else process.env.NODE_ENV = previous;
export {};
