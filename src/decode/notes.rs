//! Notes shown with a command set: which apply, and their text for readers.

use super::kv::owns_cache;
use super::labels::hardware_label;
use super::model::Placeholder;
use super::status::Status;
use crate::data::{AgentxData, Block, Cell, KvTier, Point, Role, Router, RunStatus};
use crate::util::escape::{code, text};

/// A note shown with a command set; [`Note::text`] is its Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The set was derived from the measured launch of its point.
    DerivedFrom {
        /// The submitted router.
        router: Router,
        /// The measured tier.
        tier: KvTier,
        /// Whether that launch is verified (else only submitted).
        verified: bool,
    },
    /// The router differs from the submitted one.
    RouterSwap {
        /// The router of this set.
        to: Router,
    },
    /// The KV tier was removed.
    KvRemoved,
    /// HiCache settings were added from a donor launch.
    KvHicache {
        /// configKey of the donor.
        donor: String,
        /// Its hardware label.
        donor_hardware: String,
        /// Roles of the workers that got them (`agg`, `prefill`).
        roles: String,
    },
    /// Mooncake settings were added from the donor launch.
    KvMooncake {
        /// configKey of the donor.
        donor: String,
        /// Its hardware label.
        donor_hardware: String,
    },
    /// The run used a synthetic speculative-decoding acceptance length.
    SyntheticAcceptance {
        /// Its golden acceptance length, when known.
        golden_al: Option<String>,
    },
    /// The run used a chat template these commands leave out.
    ChatTemplate,
    /// A disclosure this tool has no text for.
    UnknownDisclosure(String),
    /// `--enable-dp-attention` is deprecated in newer SGLang.
    RenameDpAttention,
    /// `--hicache-size` is sized to SemiAnalysis's hosts.
    HicacheSize,
    /// `MOONCAKE_PROTOCOL=efa` is for AWS EFA.
    Efa,
    /// `MOONCAKE_GLOBAL_SEGMENT_SIZE` is sized to SemiAnalysis's hosts.
    MooncakeSegment,
    /// How to write `$IB_DEVICES`.
    IbDevices,
    /// An install step the submission used for the router.
    Install {
        /// The router.
        router: Router,
        /// The step (a `#` line is a comment).
        line: String,
    },
    /// Dynamo comes bundled in the image.
    InstallBundled,
    /// A setup step before launch, on every worker node.
    Setup {
        /// The command or script.
        what: String,
        /// Why, when the data says.
        reason: Option<String>,
    },
}

impl Note {
    /// Short machine id.
    pub fn id(&self) -> &'static str {
        match self {
            Note::DerivedFrom { .. } => "derived-from",
            Note::RouterSwap { .. } => "router-swap",
            Note::KvRemoved => "kv-none",
            Note::KvHicache { .. } => "kv-hicache",
            Note::KvMooncake { .. } => "kv-mooncake",
            Note::SyntheticAcceptance { .. } => "synthetic-acceptance",
            Note::ChatTemplate => "chat-template",
            Note::UnknownDisclosure(_) => "disclosure",
            Note::RenameDpAttention => "rename-dp-attention",
            Note::HicacheSize => "hicache-size",
            Note::Efa => "efa",
            Note::MooncakeSegment => "mooncake-segment",
            Note::IbDevices => "ib-devices",
            Note::Install { .. } => "install",
            Note::InstallBundled => "install",
            Note::Setup { .. } => "setup",
        }
    }

    /// The note as Markdown (on one line; data text in it is escaped, so
    /// it renders as the characters the data has, never as markup).
    pub fn text(&self) -> String {
        match self {
            Note::DerivedFrom {
                router,
                tier,
                verified,
            } => format!(
                "Derived from the {} launch ({} router, {}); SemiAnalysis did not run this combination.",
                if *verified { "verified" } else { "submitted" },
                router.label(),
                tier.label()
            ),
            Note::RouterSwap { to } => format!(
                "Router: re-rendered with srt-slurm's {} frontend. Engine flags are unchanged; \
                 only the launcher, routing and router-specific flags differ.",
                to.label()
            ),
            Note::KvRemoved
            | Note::ChatTemplate
            | Note::RenameDpAttention
            | Note::HicacheSize
            | Note::Efa
            | Note::MooncakeSegment
            | Note::IbDevices
            | Note::InstallBundled => self.fixed_text().into(),
            Note::KvHicache {
                donor,
                donor_hardware,
                roles,
            } => format!(
                "HiCache settings from the verified {} launch ({}), applied to the workers that \
                 hold the prefix cache ({roles}).",
                code(donor),
                text(donor_hardware)
            ),
            Note::KvMooncake {
                donor,
                donor_hardware,
            } => format!(
                "Mooncake external-linker flags, store-client environment and `mooncake_master` \
                 from the verified {} launch ({}). Its optional standalone Mooncake stores are \
                 not included.",
                code(donor),
                text(donor_hardware)
            ),
            Note::SyntheticAcceptance { golden_al } => format!(
                "SemiAnalysis measured this point with a synthetic speculative-decoding acceptance \
                 length{} (InferenceX golden AL via `SGLANG_SIMULATE_ACC_LEN`), which is not part \
                 of these commands. Real speed depends on your workload's acceptance.",
                golden_al
                    .as_deref()
                    .map(|al| format!(" of {}", text(al)))
                    .unwrap_or_default()
            ),
            Note::UnknownDisclosure(d) => {
                format!("Disclosure {}: see the submission for details.", code(d))
            }
            Note::Install { router, line } => match line.strip_prefix('#') {
                Some(rest) => format!("{}: {}", router_product(*router), text(rest)),
                None => format!(
                    "{} install used by SA: {}",
                    router_product(*router),
                    code(line)
                ),
            },
            Note::Setup { what, reason } => match reason {
                Some(r) => format!(
                    "Before launch, on every worker node: {} — {}",
                    code(what),
                    text(r)
                ),
                None => format!("Before launch, on every worker node: {}", code(what)),
            },
        }
    }

    /// The text of a note that carries no data (empty for the others,
    /// which [`Note::text`] formats).
    fn fixed_text(&self) -> &'static str {
        match self {
            Note::KvRemoved => "KV offload removed; only the GPU KV cache is used.",
            Note::ChatTemplate => {
                "The SemiAnalysis run used the `deepseek_v4_thinking.jinja` chat template, which \
                 drops tool definitions; these commands keep SGLang's built-in DeepSeek-V4 \
                 encoding, which supports tool calling."
            }
            Note::RenameDpAttention => {
                "Newer SGLang deprecates `--enable-dp-attention` and `--dp-size` in favour of \
                 `--attn-dp-size` (sglang PR #41818); these commands keep the flags this image \
                 expects."
            }
            Note::HicacheSize => {
                "`--hicache-size` is host DRAM per rank in GB, sized to SemiAnalysis's nodes; \
                 size it to your hosts."
            }
            Note::Efa => "`MOONCAKE_PROTOCOL=efa` is for AWS EFA; use `rdma` on InfiniBand.",
            Note::MooncakeSegment => {
                "`MOONCAKE_GLOBAL_SEGMENT_SIZE` is the host memory each node contributes to the \
                 Mooncake store; size it to your hosts."
            }
            Note::IbDevices => "`$IB_DEVICES` is comma-separated, e.g. `mlx5_0,mlx5_1`.",
            Note::InstallBundled => "Dynamo: the `ai-dynamo` release bundled in the image.",
            _ => "",
        }
    }
}

fn router_product(r: Router) -> &'static str {
    match r {
        Router::Dynamo => "Dynamo",
        Router::Sglang => "SGLang router",
    }
}

/// What the notes of one command set depend on.
pub(super) struct NoteContext<'a> {
    pub(super) data: &'a AgentxData,
    pub(super) cell: &'a Cell,
    pub(super) point: &'a Point,
    pub(super) router: Router,
    pub(super) tier: KvTier,
    pub(super) status: &'a Status,
    /// The run status of the point, even when the set is derived.
    pub(super) run_status: RunStatus,
    /// The set's blocks, after the tier transform.
    pub(super) blocks: &'a [Block],
    pub(super) placeholders: &'a [Placeholder],
}

impl NoteContext<'_> {
    /// Every note of the set, in the order a reader sees them: how it was
    /// derived, the disclosures, hints about flags and env, then install and
    /// setup steps.
    pub(super) fn notes(&self) -> Vec<Note> {
        let mut notes = self.derivation();
        notes.extend(self.disclosures());
        notes.extend(self.hints());
        notes.extend(self.install_and_setup());
        notes
    }

    fn derivation(&self) -> Vec<Note> {
        let (cell, point) = (self.cell, self.point);
        if *self.status != Status::Derived {
            return Vec::new();
        }
        let mut notes = vec![Note::DerivedFrom {
            router: cell.submitted,
            tier: point.kv,
            verified: self.run_status != RunStatus::InProgress,
        }];
        if self.router != cell.submitted {
            notes.push(Note::RouterSwap { to: self.router });
        }
        if self.tier != point.kv {
            notes.push(self.tier_note());
        }
        notes
    }

    /// What a tier swap to `self.tier` took, and from where.
    fn tier_note(&self) -> Note {
        let data = self.data;
        match self.tier {
            KvTier::None => Note::KvRemoved,
            KvTier::Hicache => {
                let hc = self.cell.kv.hicache.as_ref();
                let mut roles: Vec<&str> = self
                    .blocks
                    .iter()
                    .filter(|b| owns_cache(b))
                    .filter_map(|b| b.role.map(Role::id))
                    .collect();
                roles.dedup();
                Note::KvHicache {
                    donor: hc.map(|h| h.donor.clone()).unwrap_or_default(),
                    donor_hardware: hc
                        .map(|h| hardware_label(data, &h.donor_hardware))
                        .unwrap_or_default(),
                    roles: if roles.is_empty() {
                        "agg".into()
                    } else {
                        roles.join(", ")
                    },
                }
            }
            KvTier::Mooncake => {
                let km = data.kv_mooncake.as_ref();
                Note::KvMooncake {
                    donor: km.map(|k| k.donor.clone()).unwrap_or_default(),
                    donor_hardware: km
                        .map(|k| hardware_label(data, &k.donor_hardware))
                        .unwrap_or_default(),
                }
            }
        }
    }

    fn disclosures(&self) -> Vec<Note> {
        self.cell
            .disclosures
            .iter()
            .map(|d| match d.as_str() {
                "synthetic-acceptance" => Note::SyntheticAcceptance {
                    golden_al: self.point.golden_al.clone(),
                },
                "chat-template" => Note::ChatTemplate,
                other => Note::UnknownDisclosure(other.to_string()),
            })
            .collect()
    }

    /// Hints about flags, env and placeholders the commands use.
    fn hints(&self) -> Vec<Note> {
        let blocks = self.blocks;
        let any_arg = |flag: &str| blocks.iter().any(|b| b.args.iter().any(|a| a.flag == flag));
        let any_env = |k: &str, v: Option<&str>| {
            blocks
                .iter()
                .any(|b| b.env.get(k).is_some_and(|x| v.is_none_or(|v| x == v)))
        };
        let ib_devices = self.placeholders.iter().any(|p| p.name == "IB_DEVICES");
        [
            (any_arg("--enable-dp-attention"), Note::RenameDpAttention),
            (any_arg("--hicache-size"), Note::HicacheSize),
            (any_env("MOONCAKE_PROTOCOL", Some("efa")), Note::Efa),
            (
                any_env("MOONCAKE_GLOBAL_SEGMENT_SIZE", None),
                Note::MooncakeSegment,
            ),
            (ib_devices, Note::IbDevices),
        ]
        .into_iter()
        .filter_map(|(applies, note)| applies.then_some(note))
        .collect()
    }

    fn install_and_setup(&self) -> Vec<Note> {
        let (cell, router) = (self.cell, self.router);
        let mut notes = Vec::new();
        let install = cell
            .routers
            .get(&router)
            .map(|r| r.install.as_slice())
            .unwrap_or_default();
        if install.is_empty() && router == Router::Dynamo {
            notes.push(Note::InstallBundled);
        }
        for line in install {
            notes.push(Note::Install {
                router,
                line: line.clone(),
            });
        }
        for s in &cell.setup {
            if let Some(what) = s.command.as_ref().or(s.script.as_ref()) {
                notes.push(Note::Setup {
                    what: what.clone(),
                    reason: s.reason.clone(),
                });
            }
        }
        notes
    }
}
