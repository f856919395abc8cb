// mdbook-agentx reader assets: the launch picker of a model page, the
// selector of a deployment page, and their command windows (tabs, Copy,
// Copy all, Copy link, Download).
//
// Progressive enhancement only: every command set is in the deployment
// pages as static HTML (div.agentx-set), and without this script every
// page reads as it is. The data is emitted at build time from the decoded
// command sets: the model page's once for the whole model
// (script.agentx-model-data, src/render/model_data.rs), each deployment
// page's for itself (script.agentx-selector-data, src/render/selector.rs).
// Nothing is decoded or fetched here, so it works from file://; every
// text is put in with text nodes, never parsed as markup. Independent of
// the builder's chrome (book.js): it runs in mdBook's html output too.
//
// Built from the files of assets/agentx/js/, in name order, by
// src/preprocessor/assets.rs.
(function () {
  "use strict";
