// Package redact decides what of a stored or configured value may be
// shown: on a console page, in a command's output, in a log line or in an
// error. The console, the worker binary and their logs all call it, so a
// value is hidden the same way wherever it appears.
//
// The rule has two halves.
//
// By name: a JSON key, header, query parameter, key=value setting or log
// attribute holds a credential when one of its words is a secret word.
// Words are the segments of a snake_case, kebab-case, dotted, spaced or
// camelCase name, compared without case and with a plural "s" dropped
// (X-Api-Key is x, api, key; privateKey is private, key; APIKEY is apikey).
// The secret words are the families
//
//	pass, passwd, password, passphrase, passcode, pwd, pw
//	secret
//	token, jwt, bearer
//	key
//	cred, credential
//	auth, oauth, authn, authz, authorization, authentication
//	session, sessionid, sid
//	cookie
//	signature, sig
//
// and a word made of one of them behind a qualifier written without a
// separator: a word ending in password, passwd, passphrase, secret, token,
// credential, cookie, signature, sessionid or sessid (dbpassword,
// accesstoken, PHPSESSID), or a word that is api, access, private, secret,
// signing, client, master, encryption, auth, session, license, app,
// shared, hmac or ssh followed by key (apikey, privatekey). Everything under a key named headers is hidden
// too: HTTP headers carry credentials under names of every kind.
//
// The edges, on purpose: a secret word must be a whole segment, so
// keyboard, monkey, turkey, author, authority, passenger, passport,
// bypass, compass, tokenizer, credit and signed are shown; a key segment
// hides every key (primary_key, idempotency_key, public_key too), since
// telling a harmless key from a credential by its name is guesswork and
// hiding one costs a reader little.
//
// By value: whatever its name, a string has the credentials of every URL
// in it hidden (the user information and every query value, keeping the
// scheme, host, path and parameter names; only the values of libpq's
// connection settings that carry no secret, such as sslmode, stay), the
// value of every key=value or key: value pair in it whose key is secret by
// name (password=... in a connection string, Authorization: Bearer ...),
// and the credential after the word Bearer or Basic.
//
// A hidden value is replaced by Mask; the text around it is kept, so a
// reader still sees which field held a secret.
package redact

// Mask stands for a hidden value.
const Mask = "xxxxx"
