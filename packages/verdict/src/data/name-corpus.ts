// Training text for the gibberish detector's character model (see gibberish.ts).
// Given names, surnames and everyday words from many languages, transliterated to ASCII the way
// people write them in mailbox names. The model only learns which letter sequences occur, so
// breadth across spelling systems matters more than frequency. To teach the detector a new
// spelling tradition, add a line of names here; nothing else changes.
// Written for this project (not copied from any name database).

const GROUPS: Record<string, string> = {
  englishGiven: `james john robert michael william david richard joseph thomas charles christopher daniel
    matthew anthony mark donald steven paul andrew joshua kenneth kevin brian george timothy ronald
    edward jason jeffrey ryan jacob gary nicholas eric jonathan stephen larry justin scott brandon
    benjamin samuel gregory alexander frank patrick raymond jack dennis jerry tyler aaron adam nathan
    henry douglas zachary peter kyle ethan walter noah jeremy christian keith roger terry gerald
    harold sean austin carl arthur lawrence dylan jesse jordan bryan billy bruce gabriel logan albert
    willie alan wayne elijah randy roy vincent ralph eugene russell bobby mason philip louis mary
    patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy betty margaret
    sandra ashley kimberly emily donna michelle carol amanda dorothy melissa deborah stephanie rebecca
    sharon laura cynthia kathleen amy angela shirley anna brenda pamela emma nicole helen samantha
    katherine christine debra rachel carolyn janet catherine heather diane ruth julie olivia joyce
    virginia victoria kelly lauren christina joan evelyn judith megan andrea cheryl hannah jacqueline
    martha gloria teresa ann sara madison frances kathryn janice jean abigail alice judy sophia grace
    denise amber doris marilyn danielle beverly isabella theresa diana natalie brittany charlotte
    kayla alexis lori chloe zoe lily ava mia harper ella scarlett aria riley nora hazel violet aurora
    penelope layla stella luna mike jim bob tom bill dave steve chris matt tony dan joe nick ben sam
    greg alex pete jeff jon ron ken rick rob tim andy josh jake kate katie liz beth sue jen jenny
    becky cathy kathy meg maggie molly abby annie ally ellie tess wendy tracy stacy misty dustin
    travis shane derek chad brett troy todd clint dwayne marcus darnell tyrone jamal deshawn latoya
    keisha ebony jasmine destiny tiffany crystal brianna hailey kaitlyn mackenzie brooklyn savannah`,
  englishSurnames: `smith johnson williams brown jones miller davis wilson anderson taylor moore jackson
    martin lee thompson white harris clark lewis robinson walker young allen king wright scott hill
    green adams baker nelson carter mitchell roberts turner phillips campbell parker evans edwards
    collins stewart morris rogers reed cook morgan bell murphy bailey cooper richardson cox howard
    ward peterson gray watson brooks sanders price bennett wood barnes ross henderson coleman jenkins
    perry powell long patterson hughes washington butler simmons foster bryant griffin hayes myers
    ford hamilton graham sullivan wallace woods cole west owens reynolds fisher ellis harrison gibson
    mcdonald marshall murray freeman wells webb simpson stevens tucker porter hunter hicks crawford
    boyd kennedy warren dixon burns gordon shaw holmes rice robertson hunt black daniels palmer mills
    nichols grant knight ferguson stone hawkins dunn perkins hudson spencer gardner stephens payne
    pierce berry matthews arnold wagner willis watkins olson carroll duncan snyder hart cunningham
    bradley lane andrews harper fox armstrong carpenter weaver greene elliott sims peters kelley
    franklin lawson fields byrne walsh oconnor obrien doyle mccarthy gallagher doherty lynch quinn
    brennan fitzgerald mcgrath macdonald mackenzie fraser mcleod mackay oneill donovan kavanagh
    flanagan sheridan callaghan whitaker thornton blackwood ashworth fairweather worthington`,
  celtic: `siobhan niamh aoife ciara ciaran padraig seamus sinead orla roisin grainne eoin cormac
    declan darragh oisin fionn saoirse maeve deirdre brigid colm ruairi tadhg aisling clodagh
    mairead eilidh iain hamish morag callum fergus angus alasdair ailsa rhys dafydd gwyneth bronwen
    cerys dylan owain gareth llewellyn bethan sian emrys idris meredith`,
  german: `muller mueller schmidt schneider fischer weber meyer wagner becker schulz hoffmann
    schafer koch bauer richter klein wolf schroder neumann schwarz zimmermann braun kruger hofmann
    hartmann lange schmitt werner schmitz krause meier lehmann schmid schulze maier kohler herrmann
    konig walter mayer huber kaiser fuchs lang scholz moller weiss jung hahn schubert vogel friedrich
    keller gunther berger winkler roth beck lorenz baumann franke albrecht schuster ludwig bohm
    winter kraus schumacher kramer vogt stein jager otto sommer gross seidel heinrich brandt haas
    schreiber graf schulte dietrich ziegler kuhn pohl engel horn busch bergmann voigt sauer wolff
    pfeiffer hans klaus jurgen wolfgang dieter gunter helmut uwe karl heinz horst rainer manfred
    stefan thorsten dirk jens sven lars markus matthias andreas tobias florian lukas felix
    maximilian jonas leon finn niklas moritz philipp sebastian christoph johannes ursula monika
    sabine renate brigitte gisela karin heike birgit katrin anja julia lena leonie emilia sophie lea
    johanna annika franziska friederike gertrud hildegard waltraud siegfried gottfried reinhold
    schwarzkopf steinbach rosenthal lichtenberg
    jansen janssen devries vandenberg vandijk bakker visser smit meijer dejong mulder degroot bos vos
    hendriks dekker vanleeuwen brouwer dewit dijkstra smits degraaf vanderheijden jeroen pieter willem
    joost bram sander thijs daan ruben femke anouk sanne lotte fleur eva iris marloes`,
  french: `bernard dubois petit durand leroy moreau simon laurent lefebvre michel bertrand roux
    fournier morel girard andre lefevre mercier dupont lambert bonnet francois legrand garnier faure
    rousseau blanc guerin roussel nicolas perrin morin mathieu clement gauthier dumont fontaine
    chevalier robin masson gerard boyer denis lemaire duval joly gautier roche noel lucas meunier
    marchand dufour blanchard barbier brun dumas brunet leroux colin delacroix beaumont bourgeois
    pierre philippe alain jacques christophe frederic stephane sebastien olivier thierry pascal julien
    guillaume antoine maxime hugo raphael jules theo enzo romain benoit yannick herve didier gilles
    thibault thibaut aurelien matthieu nathalie isabelle sylvie francoise monique valerie sandrine
    veronique celine aurelie emilie camille manon ines jade louise lucie juliette margaux pauline
    oceane amelie helene genevieve josephine marguerite`,
  iberian: `garcia rodriguez gonzalez fernandez lopez martinez sanchez perez gomez jimenez ruiz
    hernandez diaz moreno alvarez munoz romero alonso gutierrez navarro torres dominguez vazquez
    ramos gil ramirez serrano blanco suarez molina morales ortega delgado castro ortiz rubio marin
    sanz nunez iglesias medina garrido cortes castillo santos lozano guerrero cano prieto mendez
    cruz calvo gallego vidal leon herrera marquez pena flores cabrera campos vega fuentes carrasco
    diez caballero reyes nieto aguilar pascual santana herrero lorenzo hidalgo montero ibanez
    gimenez ferrer duran santiago benitez mora vicente vargas arias carmona crespo roman pastor soto
    saez velasco moya soler parra esteban bravo gallardo rojas echeverria etxeberria goikoetxea
    aguirre urrutia zabala silva souza oliveira costa pereira almeida carvalho ferreira rodrigues
    gomes martins araujo barbosa ribeiro cardoso nascimento lima moura teixeira correia pinto
    monteiro mendes freitas rocha dias cavalcanti azevedo jose antonio manuel francisco juan javier
    carlos jesus alejandro miguel rafael pedro angel pablo sergio fernando luis jorge alberto alvaro
    diego adrian raul enrique ramon ignacio andres joaquin mateo emiliano leonardo rodrigo eduardo
    gustavo ricardo guillermo hector julio cesar oscar marcos victor maria carmen isabel dolores
    pilar rosa josefa cristina lucia marta elena paula raquel silvia beatriz monica alicia irene
    rocio nuria sofia valentina camila valeria mariana gabriela ximena luciana renata catalina
    florencia agustina lourdes guadalupe esperanza consuelo inaki aitor iker joao paulo tiago rui
    goncalo duarte vasco afonso thiago matheus rafaela leticia fernanda juliana larissa`,
  italian: `rossi russo ferrari esposito bianchi romano colombo ricci marino greco bruno gallo
    conti deluca mancini giordano rizzo lombardi moretti barbieri fontana santoro mariani rinaldi
    caruso ferrara galli martini leone longo gentile martinelli vitale lombardo serra coppola
    desantis damico marchetti parisi villa conte ferraro ferri fabbri bianco marini grasso valentini
    messina sala derosa gatti pellegrini palumbo sanna farina rizzi monti cattaneo morelli amato
    silvestri mazza testa grassi pellegrino carbone giuliani benedetti barone rossetti caputo
    montanari guerra palmieri bernardi martino fiore giuseppe giovanni mario luigi angelo vincenzo
    pietro salvatore carlo franco domenico paolo michele giorgio aldo luciano stefano roberto
    alessandro matteo riccardo davide simone federico gabriele tommaso edoardo giulia chiara
    francesca federica alessia martina giorgia ginevra beatrice elisa paola giovanna`,
  polishCzech: `nowak kowalski wisniewski wojcik kowalczyk kaminski lewandowski zielinski szymanski
    wozniak dabrowski kozlowski jankowski mazur wojciechowski kwiatkowski krawczyk kaczmarek
    piotrowski grabowski zajac pawlowski michalski krol wieczorek jablonski wrobel nowakowski
    majewski olszewski stepien malinowski jaworski adamczyk dudek nowicki pawlak gorski witkowski
    walczak sikora baran rutkowski michalak szewczyk ostrowski tomaszewski pietrzak zalewski
    wroblewski jasinski marciniak sadowski zawadzki jakubowski wilk chmielewski wlodarczyk
    borkowski sokolowski szczepanski sawicki kucharski kalinowski wysocki maciejewski czarnecki
    konieczny szulc brzezinski przybylski chrzanowski grzelak szczepaniak krzeminski przybysz
    brzeczyszczykiewicz szczygiel trzaskowski pszczolkowski grzybowski chrzaszcz zdzieblo
    piotr krzysztof andrzej tomasz pawel michal marcin grzegorz jozef lukasz zbigniew jerzy tadeusz
    mateusz dariusz mariusz wojciech ryszard jakub kazimierz marek stanislaw henryk przemyslaw
    szymon bartosz kamil dawid maciej rafal slawomir wieslaw zdzislaw boguslaw miroslaw radoslaw
    jaroslaw katarzyna malgorzata agnieszka krystyna elzbieta zofia magdalena joanna janina danuta
    jadwiga aleksandra halina irena beata dorota karolina jolanta iwona grazyna wioletta urszula
    justyna agata paulina zuzanna weronika ewelina kinga kowalska wisniewska nowakowska
    novak svoboda novotny dvorak cerny prochazka kucera vesely horak nemec pokorny pospisil hajek
    jelinek kral ruzicka benes fiala sedlacek dolezal zeman kolar navratil cermak vanek urban blaha
    kriz kovac vlcek stepanek jiri petr josef pavel jaroslav tomas miroslav zdenek vaclav karel
    milan vladimir jana hana lenka katerina lucie vera alena petra veronika jitka tereza zdenka
    ludmila novakova svobodova dvorakova`,
  eastSlavic: `ivanov smirnov kuznetsov popov vasiliev petrov sokolov mikhailov novikov fedorov
    morozov volkov alekseev lebedev semenov egorov pavlov kozlov stepanov nikolaev orlov andreev
    makarov nikitin zakharov zaitsev solovyov borisov yakovlev grigoriev romanov vorobyov sergeev
    kuzmin frolov aleksandrov dmitriev korolev gusev kiselev ilyin maksimov polyakov sorokin
    vinogradov kovalev belov medvedev antonov tarasov zhukov baranov filippov komarov davydov
    belyaev gerasimov bogdanov osipov sidorov matveev titov markov mironov krylov kulikov karpov
    vlasov melnikov denisov gavrilov tikhonov kazakov afanasiev shcherbakov khrushchev
    shevchenko kovalenko bondarenko tkachenko kravchenko oliynyk shevchuk koval polishchuk bondar
    tkachuk moroz marchenko lysenko rudenko savchenko petrenko klymenko pavlenko kuzmenko
    ponomarenko alexei andrei anton artem boris dmitry evgeny fedor gennady grigory igor ilya ivan
    kirill konstantin leonid maxim mikhail nikita nikolai oleg pyotr roman ruslan sergei stanislav
    vadim valentin valery vasily viktor vitaly vladislav vyacheslav yaroslav yuri anastasia daria
    ekaterina galina irina ksenia larisa lyudmila marina natalia nadezhda olga polina svetlana
    tatiana victoria yulia zoya oksana olena iryna bohdan taras mykola oleksandr volodymyr andriy
    vasyl yevhen serhiy dmytro ivanova petrova smirnova volkova kuznetsova
    horvat kovacevic babic maric juric vukovic knezevic markovic petrovic jovanovic nikolic ilic
    djordjevic stojanovic pavlovic milosevic popovic stankovic todorovic zoran goran dragan nenad
    dejan bojan ivana jelena milica dragana snezana tijana marija georgiev dimitrov hristov todorov
    stoyanov`,
  nordic: `johansson andersson karlsson nilsson eriksson larsson olsson persson svensson gustafsson
    pettersson jonsson jansson hansson bengtsson lindberg lindqvist lindgren berg axelsson lundberg
    lundgren jakobsson magnusson olofsson hansen johansen olsen larsen andersen pedersen nilsen
    kristiansen jensen karlsen johnsen pettersen eriksen haugen hagen johannessen andreassen
    jacobsen dahl jorgensen halvorsen henriksen lund sorensen rasmussen christensen petersen madsen
    kristensen mikkelsen frederiksen korhonen virtanen makinen nieminen makela hamalainen laine
    heikkinen koskinen jarvinen lehtonen lehtinen saarinen salminen heinonen niemi heikkila
    kinnunen salonen turunen aalto hyvonen anders johan erik nils jan bjorn magnus fredrik henrik
    mats ola olav ole knut arne gunnar leif terje kjell rune trond jarle eirik sigurd haakon
    torbjorn soren astrid ingrid sigrid solveig kari liv hilde ragnhild marit randi siri tove ylva
    malin frida linnea elin saga maja ebba alva klara freja matilda mette juha jukka mikko antti
    timo pekka sami jari harri heikki tuomas ville aino eeva kaisa liisa minna paivi riikka satu
    tiina sanna katja jonna sigurdsson gudmundsson jonsdottir sigurdardottir olafur gudrun sigridur`,
  chinese: `wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo
    zheng liang xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang yu du ye
    cheng wei su lu ding ren shen yao jin fu zhong tan dai cui qian qiu qin gu hou shao meng long wan
    duan lei kong tao hong fan zou xiong bai mao hao qiao xue yan fang shi jia jiao kang lai ou xing
    yin zhan zhuang na xiuying min jing qiang jun yong jie ming chao xiuzhen hua ping gang gui ying
    hui juan xin bo dan xiaoming xiaohong xiaoyan xiaojuan jianguo jianhua jianjun zhiqiang zhiwei
    haiyan haitao yufei yuxuan zihan zixuan haoran yuhang yichen xinyi ziyi yutong shuang xiaolong
    jiahui mengyao tianyu rui jiayi qing zhen huan kai jian xiang cong bin wenjun wenbo xuefeng
    guangming zhenyu chunhua qiuyue shuai yixuan junjie wong chan cheung leung ng ho lau yeung tsang
    chow kwok lam tsui yip chu tse mak kwan fong chiu hui lo tung tsai hsu chang hsieh chung kuo
    tseng chien chiang yeh kaming siuming wingyee chiahao ooi teo goh tay`,
  japanese: `sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato yoshida
    yamada sasaki yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki mori abe ikeda
    hashimoto yamashita ishikawa nakajima maeda fujita ogawa goto okada hasegawa murakami kondo
    ishii saito sakamoto endo aoki fujii nishimura fukuda ota miura fujiwara okamoto matsuda
    nakagawa nakano harada ono tamura takeuchi kaneko wada nakayama ishida ueda morita hara shibata
    sakai kudo yokoyama miyazaki miyamoto uchida takagi ando taniguchi ohno maruyama imai takada
    fujimoto takeda murata ueno sugiyama masuda sugawara hirano hiroshi takashi makoto kenji akira
    yuki daisuke takuya kazuki shota haruto yuto sota ren hinata kaito riku naoki satoshi tetsuya
    kazuo ichiro jiro taro kenta ryota hiroki yusuke yuta ryo keiko yoko akiko tomoko yumiko naoko
    mayumi yuko sachiko kumiko hiroko emi yui aoi hina sakura mei rin miyu haruka misaki ayaka
    nanami yuna mio saki ayumi`,
  korean: `kim park choi jung kang cho yoon jang lim oh seo shin kwon hwang ahn yoo jeon ko moon
    son bae baek heo nam sim noh ha kwak sung cha joo woo koo ryu ji eom chae won chun bang gong
    hyun minjun seojun dohyun jiho jihun jihoon junseo hajun yejun siwoo jiwoo seoyeon seoyun haeun
    minseo jiyu chaewon subin jimin jiyeon hyejin eunji sujin minji yujin seungho sunghoon jaehyun
    donghyun jinwoo taeyang hyunwoo youngho kyungsoo jisoo`,
  vietnamese: `nguyen tran le pham hoang huynh phan vu vo dang bui do ngo duong ly truong dinh mai
    trinh quach luu anh minh thanh hung tuan huy dung quang duc nam phuong linh trang huong thao
    ngoc lan hoa thu hanh hieu khanh khoa loc phuc tam thi van hai son trung vinh bao chau diep
    giang my nhung oanh quynh tuyet uyen vy xuan yen thuy tien dat`,
  southAsian: `sharma verma gupta singh kumar patel shah mehta joshi desai reddy rao naidu nair
    menon pillai iyer iyengar krishnan subramanian venkatesh srinivasan raman raghavan narayanan
    chandra mishra pandey tiwari dubey tripathi shukla chaturvedi agarwal aggarwal bansal goel
    mittal jain malhotra kapoor khanna chopra arora bhatia sethi saxena srivastava banerjee
    chatterjee mukherjee ghosh bose das dutta sen roy chakraborty bhattacharya sarkar biswas
    majumdar kulkarni deshpande patil pawar jadhav shinde gaikwad chavan yadav chauhan rathore
    thakur rajput choudhary gill sandhu dhillon grewal sidhu bajwa randhawa rahul amit rajesh suresh
    ramesh mahesh dinesh ganesh vijay sanjay ajay anil sunil manoj vinod ashok pradeep sandeep
    deepak rakesh mukesh naresh rajendra ravi arun varun karan arjun rohan rohit mohit sumit ankit
    nikhil akash vikas vikram aditya abhishek siddharth pranav aarav vivaan ishaan krishna gopal
    venkat srinivas lakshman murali hari shankar sachin sourav debashish priya pooja neha anjali
    kavita sunita anita geeta rekha meena seema deepa divya shreya ananya aishwarya lakshmi padma
    radha sita gita savita usha asha swati nisha ritu sneha kavya aditi riya shruti tanvi ishita
    harpreet gurpreet manpreet jaspreet simran navdeep rajinder balwinder kuldeep sukhwinder
    parveen farhan imran aamir salman venkataraman ramakrishnan balasubramanian sivakumar
    thirunavukkarasu muthukumar senthil karthik saravanan murugan selvam anbu ilango thangaraj
    sundaram`,
  middleEast: `mohammed muhammad mohamed ahmed ahmad ali hassan hussein hussain ibrahim mahmoud
    mustafa omar umar khalid khaled abdullah abdulrahman abdelrahman abdulaziz abdallah youssef
    yusuf yousef karim kareem tariq tarek samir sami nabil walid waleed faisal fahad saud sultan
    nasser rashid saeed said hamza bilal anas ziad zaid majid hamid amir jamal kamal adel adil fadi
    rami hani bassam hisham osama ayman ashraf emad nader jabir fatima fatma aisha aysha ayesha
    maryam mariam khadija zainab zaynab leila noor nour amina amal huda rania rana dina lina salma
    yasmin yasmine samira nadia mona reem hala ghada lubna alqahtani alghamdi alharbi alzahrani
    alotaibi almutairi alshehri aldosari alsaud alfarsi elsayed abdelaziz elmasry elamrani haddad
    khoury nassar saleh salem mansour aziz rahman rahim hakim naser farouk qureshi siddiqui khan
    malik sheikh chaudhry butt mirza baig ansari hashmi rizvi zaidi naqvi hosseini mohammadi ahmadi
    rezaei moradi karimi jafari rahimi sadeghi hashemi kazemi ebrahimi mousavi azizi amini farhadi
    darius reza mehdi hossein arash babak farzad kaveh shirin parisa mahsa leyla yilmaz kaya demir
    sahin celik yildiz yildirim ozturk aydin ozdemir arslan dogan kilic aslan cetin kara koc kurt
    ozkan simsek polat erdogan mehmet ahmet huseyin hasan ismail osman murat emre burak can cem kemal
    serkan volkan zeynep elif ayse emine hatice merve busra esra ozge gizem cohen levi levy mizrahi
    peretz biton dahan avraham friedman katz goldberg shapiro rosenberg segal yosef moshe avi yael
    noa tamar shira ayelet eitan itai oren yoni gilad noam mkhitaryan petrosyan sargsyan hakobyan
    grigoryan beridze kapanadze gelashvili maisuradze giorgi nino tamari`,
  african: `okafor okonkwo adeyemi adebayo oluwaseun olumide chukwu chukwuemeka obi eze nwosu ibe
    okoro babatunde ogunleye afolabi balogun abubakar musa bello suleiman yakubu danjuma ngozi
    chidi chinedu adaeze amaka kamau mwangi otieno ochieng njoroge wanjiru kariuki kiprop cheruiyot
    mutua akinyi achieng mensah asante owusu boateng osei agyeman appiah ofori kwame kofi kwabena
    yaw ama akosua abena nkosi dlamini ndlovu khumalo mokoena zulu sithole naidoo mthembu thabo
    sipho themba lerato nomvula zanele tendai tafadzwa chipo farai tsegaye tesfaye bekele haile
    girma alemu desta mekonnen abebe diallo traore keita coulibaly toure sow ba ndiaye diop fall`,
  european: `papadopoulos papadakis georgiou dimitriou nikolaou konstantinou christodoulou ioannou
    vasileiou karagiannis oikonomou antoniou yannis giorgos nikos kostas dimitris panagiotis vasilis
    eleni despina nagy kovacs toth szabo horvath varga kiss molnar nemeth farkas balogh papp takacs
    juhasz lakatos meszaros olah racz fekete laszlo istvan gabor zoltan janos attila sandor tamas
    zsolt zsofia katalin erzsebet ildiko eszter agnes popescu ionescu popa pop radu dumitru stan
    stoica gheorghe matei ciobanu rusu munteanu constantin mihai ionut cristian florin bogdan
    catalin razvan ioana andreea mihaela alina simona roxana kazlauskas jankauskas petrauskas
    vasiliauskas mindaugas egle ruta kalnins ozols berzins liepa janis andris ilze tamm saar sepp
    kask mets kukk`,
  southeastAsian: `santoso wijaya susanto hartono halim gunawan setiawan kurniawan pratama saputra
    hidayat nugroho siregar simanjuntak budi agus dewi sri putri wulan ayu indah rina yanti nurul
    siti aminah azman razak reyes bautista ocampo mendoza villanueva aquino dela delos rosario
    domingo maricel somchai somsak suda malee nattapong siriporn wattana sukhum chaiyaporn prasert
    kittisak thanawat srisuk`,
  words: `sales support info admin contact hello office team help service billing accounts account
    finance marketing press media news jobs careers recruiting security privacy legal abuse
    postmaster webmaster hostmaster noreply reply mail email inbox home work business company group
    studio design developer engineering tech data cloud web site shop store online digital global
    international world creative events travel music photo photography art garden family friends
    love happy sunny sunshine star stars moon sun sky blue red green black white silver gold golden
    dragon tiger lion wolf bear eagle hawk fox king queen prince princess angel baby boy girl lady
    man guy dude cool best super great real true big little small old new young smart crazy wild
    free life live lucky magic dream dreams fire water ice snow rain storm thunder shadow night day
    morning summer winter spring autumn ocean sea river lake mountain forest tree rose lily flower
    pink purple orange cherry apple peach honey sugar candy sweet coffee tea chocolate pizza food
    cook chef kitchen game games gamer player play sport sports football soccer basketball baseball
    hockey tennis golf runner rider driver pilot captain doctor nurse teacher student school college
    university academy library book books reader writer author poet artist painter singer dancer
    actor film movie video radio channel blog official the my your our mrs miss sir user member guest
    client customer customers order orders invoice invoices payments payment pay receipts booking
    bookings reservations reservation enquiries enquiry inquiries questions feedback community
    partners partner affiliates investor investors relations development product products project
    projects manager management director founder owner president boss welcome thanks reception
    front desk helpdesk services solutions systems network consulting agency center centre clinic
    hospital dental health care medical law firm realty homes property properties estate
    construction auto cars motors repair cleaning plumbing electric energy solar farm ranch church
    ministry foundation charity city town county state national american london paris berlin texas
    california florida york boston chicago atlanta denver seattle dallas houston miami vegas
    newsletter admissions alumni editor pastor coach traveler lover worm owl mom dad grandma grandpa
    brother sister uncle aunt cousin kids test demo trial temp mister father mother wife husband
    office manager assistant secretary accounting payable receivable purchasing procurement
    logistics shipping warehouse operations quality compliance training volunteer volunteers`,
};

export const NAME_CORPUS: readonly string[] = Object.values(GROUPS).flatMap((text) => text.split(/\s+/).filter((w) => w.length > 0));
