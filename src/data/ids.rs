//! The vocabulary the data and the decoded model share: routers, KV tiers,
//! block kinds and worker roles, with the ids the data and anchors use.

use std::fmt;

use anyhow::Result;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

/// The two front doors a deployment can run behind. Ordered as the data's
/// key sort orders them (`dynamo` before `sglang`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    /// Dynamo frontend with `dynamo.sglang` workers.
    Dynamo,
    /// SGLang: `sglang.launch_server`, behind `sglang_router` when needed.
    Sglang,
}

impl Router {
    /// Every router, in data order.
    pub const ALL: [Router; 2] = [Router::Dynamo, Router::Sglang];

    /// The id the data and anchors use (`dynamo`, `sglang`).
    pub const fn id(self) -> &'static str {
        match self {
            Router::Dynamo => "dynamo",
            Router::Sglang => "sglang",
        }
    }

    /// The chip text a reader sees.
    pub fn label(self) -> &'static str {
        match self {
            Router::Dynamo => "Dynamo + SGLang",
            Router::Sglang => "SGLang",
        }
    }

    /// The entry point the workers run behind this router.
    pub fn worker_entry_point(self) -> &'static str {
        match self {
            Router::Dynamo => "dynamo.sglang",
            Router::Sglang => "sglang.launch_server",
        }
    }
}

impl fmt::Display for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// KV-offload tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KvTier {
    /// GPU KV cache only.
    None,
    /// HiCache: KV offload to host DRAM.
    Hicache,
    /// A Mooncake store through SGLang's external linker.
    Mooncake,
}

impl KvTier {
    /// Every tier, in the order a reader sees them.
    pub const ALL: [KvTier; 3] = [KvTier::None, KvTier::Hicache, KvTier::Mooncake];

    /// The id the data and anchors use (`none`, `hicache`, `mooncake`).
    pub const fn id(self) -> &'static str {
        match self {
            KvTier::None => "none",
            KvTier::Hicache => "hicache",
            KvTier::Mooncake => "mooncake",
        }
    }

    /// The text a reader sees.
    pub fn label(self) -> &'static str {
        match self {
            KvTier::None => "No KV offload",
            KvTier::Hicache => "HiCache (host DRAM)",
            KvTier::Mooncake => "Mooncake store (external linker)",
        }
    }
}

impl fmt::Display for KvTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Routers and tiers are read as plain strings (not serde enums) so that, as
/// map keys, the error path still names them (`routers.sglang`, not `routers.?`).
macro_rules! deserialize_by_id {
    ($ty:ty) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                const IDS: &[&str] = &{
                    let mut ids = [""; <$ty>::ALL.len()];
                    let mut i = 0;
                    while i < ids.len() {
                        ids[i] = <$ty>::ALL[i].id();
                        i += 1;
                    }
                    ids
                };
                let s = String::deserialize(d)?;
                <$ty>::ALL
                    .into_iter()
                    .find(|v| v.id() == s)
                    .ok_or_else(|| de::Error::unknown_variant(&s, IDS))
            }
        }
    };
}
deserialize_by_id!(Router);
deserialize_by_id!(KvTier);

/// What a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockKind {
    /// An SGLang or Dynamo worker.
    Worker,
    /// etcd (Dynamo's control plane).
    Etcd,
    /// NATS (Dynamo's KV-event plane).
    Nats,
    /// nginx in front of several Dynamo frontends.
    Nginx,
    /// `dynamo.frontend` (OpenAI API).
    DynamoFrontend,
    /// `sglang_router` (OpenAI API).
    SglangRouter,
    /// `mooncake_master` (KV store metadata).
    MooncakeMaster,
    /// A standalone Mooncake store.
    MooncakeStore,
}

impl BlockKind {
    /// The kebab-case id the data uses.
    pub fn id(self) -> &'static str {
        match self {
            BlockKind::Worker => "worker",
            BlockKind::Etcd => "etcd",
            BlockKind::Nats => "nats",
            BlockKind::Nginx => "nginx",
            BlockKind::DynamoFrontend => "dynamo-frontend",
            BlockKind::SglangRouter => "sglang-router",
            BlockKind::MooncakeMaster => "mooncake-master",
            BlockKind::MooncakeStore => "mooncake-store",
        }
    }
}

/// Role of a worker process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Aggregated: prefill and decode in one worker.
    Agg,
    /// Prefill worker of a disaggregated deployment.
    Prefill,
    /// Decode worker of a disaggregated deployment.
    Decode,
}

impl Role {
    /// The lower-case id the data uses.
    pub fn id(self) -> &'static str {
        match self {
            Role::Agg => "agg",
            Role::Prefill => "prefill",
            Role::Decode => "decode",
        }
    }

    /// Roles that own a prefix cache and so take KV-offload settings.
    pub fn owns_cache(self) -> bool {
        matches!(self, Role::Agg | Role::Prefill)
    }
}
