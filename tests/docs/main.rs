//! What a user reads first: the README's 30-second snippet, verbatim (`readme`), and what a new
//! user tried from the docs (`newcomer`). One test binary, a module per concern.

mod newcomer;
mod readme;
