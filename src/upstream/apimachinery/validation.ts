// Name and label syntax, as the API server checks it. Ported from k8s.io/apimachinery
// pkg/util/validation/validation.go (k8s.io/apimachinery v0.36.3, from Kubernetes v1.36.3):
// `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`, `IsQualifiedName`,
// `IsValidLabelValue`, `RegexError`, `MaxLenError`; and the object-name rules of
// k8s.io/apimachinery pkg/api/validation/generic.go (`NameIsDNSSubdomain`, `NameIsDNSLabel`,
// `NameIsDNS1035Label`) as pkg/apis/core/validation/validation.go applies them
// (`ValidateServiceName` = DNS-1035 label, `ValidateNamespaceName` = DNS-1123 label, Nodes,
// Deployments, StatefulSets and HPAs = DNS-1123 subdomain).
//
// Every check is linear in its input: lengths are checked first and the regular expressions
// have one anchored start and no nested quantifiers.

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
const DNS1123LabelMaxLength = 63
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`)

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
const DNS1123SubdomainMaxLength = 253
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`)

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?'
const dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
const DNS1035LabelMaxLength = 63
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`)

const qnameCharFmt = '[A-Za-z0-9]'
const qnameExtCharFmt = '[-A-Za-z0-9_.]'
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const qualifiedNameMaxLength = 63
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`)

const labelValueFmt = `(${qualifiedNameFmt})?`
const labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const LabelValueMaxLength = 63
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`)

/** Go's len(): the UTF-8 length in bytes. */
function byteLength(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/** validation.go `MaxLenError`. */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`
}

/** validation.go `RegexError`. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`
  let out = `${msg} (e.g. `
  examples.forEach((e, i) => {
    if (i > 0) out += ' or '
    out += `'${e}', `
  })
  return `${out}regex used for validation is '${fmt}')`
}

/**
 * A regular expression test bounded by the length the rule allows: a value longer than any
 * valid one is not matched (the length error already says it is invalid), so a hostile
 * multi-megabyte name costs no regex run.
 */
function matches(re: RegExp, value: string, maxLength: number): boolean {
  return value.length <= maxLength * 4 && re.test(value)
}

/** validation.go `IsDNS1123Label`: the errors (none: valid). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = []
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength))
  if (!matches(dns1123LabelRegexp, value, DNS1123LabelMaxLength)) {
    if (matches(dns1123SubdomainRegexp, value, DNS1123SubdomainMaxLength)) errs.push('must not contain dots')
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'))
  }
  return errs
}

/** validation.go `IsDNS1123Subdomain`. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = []
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength))
  if (!matches(dns1123SubdomainRegexp, value, DNS1123SubdomainMaxLength)) errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'))
  return errs
}

/** validation.go `IsDNS1035Label`. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = []
  if (byteLength(value) > DNS1035LabelMaxLength) errs.push(maxLenError(DNS1035LabelMaxLength))
  if (!matches(dns1035LabelRegexp, value, DNS1035LabelMaxLength)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'))
  return errs
}

/** validation.go `IsQualifiedName` (label and annotation keys: an optional DNS-subdomain prefix and a name). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = []
  const parts = value.split('/')
  let name: string
  if (parts.length === 1) name = parts[0]!
  else if (parts.length === 2) {
    const prefix = parts[0]!
    name = parts[1]!
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`)
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`)
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`)
  else if (byteLength(name) > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`)
  if (!matches(qualifiedNameRegexp, name, qualifiedNameMaxLength)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`)
  return errs
}

/** validation.go `IsValidLabelValue`. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = []
  if (byteLength(value) > LabelValueMaxLength) errs.push(maxLenError(LabelValueMaxLength))
  if (!matches(labelValueRegexp, value, LabelValueMaxLength)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'))
  return errs
}

/** validation.go `EmptyError`. */
function emptyError(): string {
  return 'must be non-empty'
}

/** The kinds whose names this tool puts in a path, a URL or a printed command. */
export type NamedKind = 'Service' | 'Namespace' | 'Node' | 'Deployment' | 'StatefulSet' | 'HorizontalPodAutoscaler' | 'EndpointSlice'

/**
 * The API server's rule for an object name of `kind` (pkg/apis/core/validation/validation.go
 * `ValidateServiceName` is DNS-1035, `ValidateNamespaceName` DNS-1123 label; the others
 * `NameIsDNSSubdomain`): the errors, none when valid. An empty name is `EmptyError`.
 */
export function validateObjectName(kind: NamedKind, name: string): string[] {
  if (name.length === 0) return [emptyError()]
  switch (kind) {
    case 'Service':
      return isDNS1035Label(name)
    case 'Namespace':
      return isDNS1123Label(name)
    default:
      return isDNS1123Subdomain(name)
  }
}
