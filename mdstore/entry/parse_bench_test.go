package entry

import "testing"

// BenchmarkParseFile parses one file of each kind the bench corpus
// makes most of (journal, learning, knowledge): the per-file cost of a
// full read of the store (a first search in a clone, an index build).
func BenchmarkParseFile(b *testing.B) {
	files := []struct{ path, text string }{
		{".agent/journal/run-000000fa/0032.md", `---
run_id: run-000000fa
iteration: 32
task_id: "task-31"
outcome: done
model: "sonnet"
duration_secs: 461
cost_usd: 0.31
files_modified: [src/stoba.go]
created_at: "2026-05-02T16:17:00Z"
---

gudost soudese sheamet kouceani cupez naipleagoust lubust dosheresh gudost seapa leatredo shemenu shushada temush.
zepaishel daplusti lubust temush kaishoum zepaishel gudost papouzo temush lubust roukach veashaiplea gudost zemesor.
lubust fumoutrai sutrer plubai latretraid zepaishel bacho.
`},
		{".agent/learnings/l-000000.md", `---
id: l-000000
category: strategy
tags: [ploufodo-lubust]
task: "task-0"
created_at: "2026-01-01T00:00:00Z"
status: active
---

chobonouz zepaishel deadac deacaiseat taveak stiveafa gudost posol lubust nige gaidoub leatredo lubust ficaikar.
naifeat cetreap tushosef kozi plibege traivoutrou traivu lubust fekepl papouzo tushosef zepaishel lubust seapa.
leatredo ceziv seachude feameasteam cetreap traileashea tushosef leatredo cetreap pouste plubai zepaishel shaiplouf lubust.
tushosef budeab kimea gudost kimea gouzik rouze ratriz bichaif cetreap veca taivetec gatrusu traivoutrou.
ladodair taivetec temush suplesub veasea legakib shaiplouf seapa checishid ladodair mealouzaik fototepl sheabea rouze.
shisivouk zepaishel kimea pleastaivuv lenuto temush nouplouk lorouzou vashukaic chasos saisapeag zepaishel leatredo plaicea.
plapeasa toubovu foupig zepaishel vanu.
`},
		{".agent/knowledge/bache-kozi-romop-7537.md", `---
title: "bache kozi romop 7537"
tags: [shaileadon-roubai, novear-neshoumea]
created_at: "2026-02-06T15:19:00Z"
---

fekudeas ladodair shaiplouf temush feameasteam sheasai bume tolul gudost kimea kaishoum zepaishel gudost zasheast.
traivoutrou vaive shisofe tipli faibisipl cetreap ladodair traivoutrou leatredo pigaide temush sheabea visheap pounou.
chori pitreanou fekepl linag neshoumea shaiplouf lubust temush cousapl bofaifuc neshoumea gudost leatredo rushag.
zepaishel rosaved temush traivu regeashea rashuvi shaiplouf leatredo dobidu lubust kushoupleapl lubust rike shisteastuk.
pigaide gudost koushasti shoudogas neshoumea plaimev zepaishel leatredo zasealoc steafist pleashokish leatredo lubust zepaishel.
tridogais ranaplech faibisipl couvealeap ropinouf seapa mudov leatredo faibisipl temush trainubea stousi kaishoum gudost.
fogutrea faitu tristu vainoumeap treapluc siplopla bofaifuc trougeacal gudost seti temush motaiz gudost shoket.
gudost lubust neshoumea leatredo cetreap shaiplouf bedea zaishica neshoumea gosho lubust chasos keava vitret.
shaiplouf cetreap zupech veasastour gudost tolul dodist leceplar vogo ladodair pleastaivuv lubust posol shairi.
tagai lubust lubust lubust rosaved pestou feachou stacu linag seapa peagea leatredo fekepl bume.
zepaishel neakosh traivoutrou rike bochano laideca gudost pecai zepises plaicea mezomeaz lubust veasea plibu.
gousuplopl lubust pedeastai trocaish zepises pigaide beakodi zabishoutr seapa lubust lubust gudost zairel trereache.
gudost lubust temush zepaishel mezomeaz sapleapl bulagi plaibeagous lubust gudost foupig neakosh nesisti ruloumoup.
budead zosaigur lubust reashoutr bigek ratriz gudost fubel pouste gagaidout zepaishel fekepl bedea gudost.
naipleagoust zacheazo fekepl voto laideca pleroche leatredo lutrelaib fumoutrai cheafazom plaikanaiz linag gudost kaisto.
seapa pleshoutr zosaigur neshoumea leatredo loutrachout zepaishel kearai cetreap zesheame taibiter mezomeaz bekash pleastaivuv.
leatredo gaidoub sairi temush baicane tridogais sufu rastaich plaicea zepaishel tushosef pleavushof faibisipl tremo.
rouze lubust couplalea runou trainubea leatredo.
`},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if _, ws := ParseFile(f.path, []byte(f.text)); len(ws) > 0 {
				b.Fatal(ws)
			}
		}
	}
}
