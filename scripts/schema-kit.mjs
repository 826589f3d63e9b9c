// Building blocks shared by the JSON Schema generators (gen-schema.mjs, gen-check-schemas.mjs,
// gen-apply-schema.mjs). Each schema is written by hand from these, so a change of an output
// shape is a deliberate, reviewed change of its generator.
import {writeFileSync} from 'node:fs'

export const nullable = (s) => ({anyOf: [s, {type: 'null'}]})
export const num = {type: 'number'}
export const int = {type: 'integer', minimum: 0}
export const str = {type: 'string'}
export const bool = {type: 'boolean'}
export const strings = {type: 'array', items: str}
export const obj = (properties, required = Object.keys(properties), extra = false) => ({type: 'object', properties, required, additionalProperties: extra})

/** Writes schema/NAME as indented JSON with a trailing newline. */
export function writeSchema(name, schema) {
  writeFileSync(new URL(`../schema/${name}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`)
}
