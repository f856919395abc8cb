//! The status label of a command set, from the run status the data records.

use anyhow::{Result, anyhow};

use crate::data::{Cell, Point, RunStatus};

/// Status shown for one command set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Measured and merged.
    Verified,
    /// Measured in a pull request that is not merged yet.
    VerifiedPr {
        /// The pull request's number.
        pr: String,
    },
    /// Submitted, under review.
    InProgress {
        /// The pull request's number.
        pr: String,
    },
    /// Router or tier differs from what was measured.
    Derived,
}

impl Status {
    /// Short machine id (`verified`, `verified-pr`, `in-progress`, `derived`).
    pub fn id(&self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::VerifiedPr { .. } => "verified-pr",
            Status::InProgress { .. } => "in-progress",
            Status::Derived => "derived",
        }
    }

    /// The exact label a reader sees.
    pub fn label(&self) -> String {
        match self {
            Status::Verified => "✓ Verified in SemiAnalysis InferenceX AgentX".into(),
            Status::VerifiedPr { pr } => {
                format!("✓ Verified in SemiAnalysis InferenceX AgentX (PR #{pr}, pending merge)")
            }
            Status::InProgress { pr } => {
                format!("◐ In progress in SemiAnalysis InferenceX AgentX (PR #{pr})")
            }
            Status::Derived => "Derived — not run in SemiAnalysis InferenceX AgentX".into(),
        }
    }

    pub(super) fn measured(status: RunStatus, pr: Option<&str>) -> Status {
        let pr = pr.unwrap_or("?").to_string();
        match status {
            RunStatus::Verified => Status::Verified,
            RunStatus::VerifiedPr => Status::VerifiedPr { pr },
            RunStatus::InProgress => Status::InProgress { pr },
        }
    }
}

pub(super) fn point_status(cell: &Cell, point: &Point, ci: usize, pi: usize) -> Result<RunStatus> {
    point
        .status
        .or(cell.prov.as_ref().map(|p| p.status))
        .ok_or_else(|| {
            anyhow!(
                "cells[{ci}].points[{pi}]: no status: expected cells[{ci}].prov.status (newer \
                 schema) or a per-point `status` (older schema)"
            )
        })
}

pub(super) fn point_pr<'c>(cell: &'c Cell, point: &'c Point) -> Option<&'c str> {
    point
        .pr
        .as_deref()
        .or_else(|| cell.prov.as_ref().and_then(|p| p.pr.as_deref()))
}
