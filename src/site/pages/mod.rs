//! A chapter's page: its Markdown → HTML body ([`page_html`], with
//! [`heading_ids`] and [`table`]; a model page's whole launch data split
//! out beside it by [`lazy`]), the sidebar ([`sidebar`]), the page laid
//! out in its template ([`layout`]), the landing page's table of models
//! ([`overview`]), and the check of the built pages' links and ids
//! ([`links`]).
//!
//! May use: `book`, `preprocessor`, `render` (its class names), `util`; of the
//! site: `highlight`, `search`, `theme` and the root's page types.

pub(super) mod heading_ids;
pub(super) mod layout;
pub(super) mod lazy;
pub(crate) mod links;
pub(super) mod overview;
pub(crate) mod page_html;
pub(super) mod sidebar;
pub(super) mod table;
