// Package kes owns Kawabata (KES-F) fabric data: the fabric file format, its
// validation, and the mapping to simulation materials and tactile surfaces.
package kes
